// Runs a command and counts, every 20 ms, the TCP connections to PostgreSQL that it and every
// process it starts hold. Prints the peak, the databases
// those connections were on at that moment, and the most the whole server held meanwhile.
// Linux only (it reads /proc). Usage:
//   bun scripts/pg-connections.ts [--port 5432] [--limit N] [--hold N] -- <command> [args…]
// With --limit, a peak above N fails (exit 3) even when the command passed. With --hold, N more
// connections stay open and idle meanwhile, as other users of a shared server would hold them.
import { SQL } from 'bun'
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { TEST_DATABASE_URL } from '../test/support/postgres-url'

const args = process.argv.slice(2)
const split = args.indexOf('--')
const options = split === -1 ? [] : args.slice(0, split)
const command = split === -1 ? args : args.slice(split + 1)
const option = (name: string) => {
	const at = options.indexOf(name)
	return at === -1 ? undefined : options[at + 1]
}
const port = Number(option('--port') ?? (new URL(TEST_DATABASE_URL).port || 5432))
const limit = option('--limit') === undefined ? undefined : Number(option('--limit'))
const hold = Number(option('--hold') ?? 0)
if (command.length === 0) {
	console.error('usage: bun scripts/pg-connections.ts [--port 5432] [--limit N] [--hold N] -- <command> [args…]')
	process.exit(2)
}

const read = (path: string) => {
	try {
		return readFileSync(path, 'utf8')
	} catch {
		return ''
	}
}

/** The process and all its descendants. */
function tree(root: number): number[] {
	const children = new Map<number, number[]>()
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue
		const stat = read(`/proc/${entry}/stat`)
		// The command name may hold spaces and parentheses: the parent's pid is the second field after the last ')'.
		const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
		children.set(parent, [...(children.get(parent) ?? []), Number(entry)])
	}
	const found = [root]
	for (let i = 0; i < found.length; i++) found.push(...(children.get(found[i] as number) ?? []))
	return found
}

/** The local ports of the established TCP connections to `port` that these processes hold. */
function connections(pids: number[]): number[] {
	const sockets = new Set<string>()
	for (const pid of pids) {
		let fds: string[] = []
		try {
			fds = readdirSync(`/proc/${pid}/fd`)
		} catch {
			continue
		}
		for (const fd of fds) {
			try {
				const target = readlinkSync(`/proc/${pid}/fd/${fd}`)
				if (target.startsWith('socket:[')) sockets.add(target.slice(8, -1))
			} catch {}
		}
	}
	const ports: number[] = []
	for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
		for (const line of read(table).split('\n').slice(1)) {
			const fields = line.trim().split(/\s+/)
			if (fields.length < 10 || fields[3] !== '01') continue
			const remotePort = parseInt((fields[2] as string).split(':')[1] as string, 16)
			if (remotePort === port && sockets.has(fields[9] as string))
				ports.push(parseInt((fields[1] as string).split(':')[1] as string, 16))
		}
	}
	return ports
}

const observer = new SQL({ url: TEST_DATABASE_URL, max: 1, connection: { application_name: 'pg-connections' } })
const maxConnections = Number((await observer.unsafe('SHOW max_connections'))[0].max_connections)
const holder = new SQL({
	url: TEST_DATABASE_URL,
	max: Math.max(hold, 1),
	idleTimeout: 0,
	connection: { application_name: 'pg-connections-hold' }
})
const held = await Promise.all(Array.from({ length: hold }, () => holder.reserve()))
if (hold > 0) {
	const [row] = await observer.unsafe(
		`SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend'`
	)
	console.log(
		`pg-connections: holding ${held.length} idle connections; the server has ${row.n} client connections of max_connections = ${maxConnections}`
	)
}
const started = Date.now()
const child = Bun.spawn(command, { stdio: ['inherit', 'inherit', 'inherit'] })

let peak = 0
let peakAt = 0
let peakDatabases: Record<string, number> = {}
let serverPeak = 0
let samples = 0
let busy = false

async function sample() {
	if (busy) return
	busy = true
	try {
		const ports = connections(tree(child.pid))
		samples++
		if (ports.length > peak) {
			peak = ports.length
			peakAt = Date.now() - started
			const rows = await observer.unsafe(
				`SELECT coalesce(datname, '?') AS datname, count(*)::int AS n FROM pg_stat_activity WHERE client_port = ANY($1::int[]) GROUP BY 1 ORDER BY 2 DESC`,
				[ports]
			)
			peakDatabases = Object.fromEntries(rows.map((row: { datname: string; n: number }) => [row.datname, row.n]))
		}
		if (samples % 10 === 1) {
			const [row] = await observer.unsafe(
				`SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend'`
			)
			serverPeak = Math.max(serverPeak, row.n)
		}
	} finally {
		busy = false
	}
}

const timer = setInterval(() => void sample().catch(() => {}), 20)
const status = await child.exited
clearInterval(timer)
for (const connection of held) connection.release()
await holder.close()
await observer.close()

const databases = Object.entries(peakDatabases)
	.map(([name, n]) => `${name}: ${n}`)
	.join(', ')
console.log(
	`\npg-connections: peak ${peak} connections to port ${port} held by the command at ${(peakAt / 1000).toFixed(1)} s (${databases || 'none'})`
)
console.log(
	`pg-connections: the whole server held at most ${serverPeak} client connections meanwhile (max_connections = ${maxConnections}); ${samples} samples`
)
if (limit !== undefined && peak > limit) {
	console.log(`pg-connections: the peak is above --limit ${limit}`)
	process.exit(status || 3)
}
process.exit(status)
