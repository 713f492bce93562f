// The floor: a bare Bun.serve answering a constant JSON body. argv: port
const body = JSON.stringify({
	id: '01890000-0000-7000-8000-000000000000',
	name: 'default',
	tool: 'claude-code',
	version: 1
})
const server = Bun.serve({
	port: Number(process.argv[2] ?? 0),
	hostname: '127.0.0.1',
	fetch: () => new Response(body, { headers: { 'content-type': 'application/json' } })
})
console.log(JSON.stringify({ msg: 'listening', port: server.port }))
