-- POST /api/configs with data that changes on every request, so each is a new version.
-- Environment: BENCH_KEY (bearer), BENCH_NAME (config name), BENCH_BYTES (approximate data size).
local key = os.getenv("BENCH_KEY")
local name = os.getenv("BENCH_NAME")
local bytes = tonumber(os.getenv("BENCH_BYTES") or "1024")
local pad = string.rep("x", math.max(0, bytes - 80))
local counter = 0
local prefix = ""

function setup(thread)
  thread:set("prefix", tostring(math.random(1, 1000000000)))
end

function init(args)
  prefix = prefix .. tostring(math.random(1, 1000000000))
end

request = function()
  counter = counter + 1
  local body = '{"name":"' .. name .. '","tool":"cursor","data":{"n":"' .. prefix .. "-" .. counter .. '","settings":{"theme":"dark","fontSize":14},"pad":"' .. pad .. '"}}'
  return wrk.format("POST", "/api/configs", { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json" }, body)
end
