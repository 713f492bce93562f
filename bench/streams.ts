// The live-changes scenario of `npm run bench` (docs/performance.md): 1,000 event streams open on one
// instance (50 team members × 20 streams each), then team pushes; how long each push takes to reach every
// stream, and what an idle stream costs in resident memory. Run alone: bun bench/streams.ts [BINARY].
import { connect, type Socket } from 'node:net'
import { join } from 'node:path'
import { generateApiKey, sha256Hex } from '../src/server/lib/crypto'
import { newId } from '../src/server/lib/ids'
import { openSqliteStore } from '../src/server/store/sqlite'
import { seed, type Seeded } from './seed'
import { listen, ROOT, rssBytes } from './servers'

export interface StreamFigures {
	streams: number
	pushes: number
	/** Push sent → event read on a stream, over every stream of every push. */
	p50ms: number
	p99ms: number
	maxMs: number
	/** Events that never arrived (should be 0). */
	missing: number
	/** Resident memory the open idle streams added to the server, per stream. */
	bytesPerStream: number
}

const USERS = 50
const STREAMS_EACH = 20
const PUSHES = 20

/** 50 users with keys, all in one team, added to a seeded database (the owner is the first). */
async function seedTeam(seeded: Seeded): Promise<{ keys: string[]; teamId: string }> {
	const store = openSqliteStore(seeded.file)
	const at = new Date().toISOString()
	const users: string[] = []
	const keys: string[] = []
	for (let i = 0; i < USERS; i++) {
		const id = newId()
		await store.users.create({
			id,
			email: `stream${i}@example.test`,
			username: `stream${i}`,
			passwordHash: null,
			plan: 'team',
			isAdmin: false,
			createdAt: at
		})
		const key = generateApiKey()
		await store.keys.issue({
			id: newId(),
			userId: id,
			device: `desk${i}`,
			keyHash: sha256Hex(key),
			createdAt: at,
			lastUsedAt: null
		})
		users.push(id)
		keys.push(key)
	}
	const teamId = newId()
	const owner = users[0] as string
	await store.teams.create(
		{ id: teamId, name: 'Streams', slug: 'streams', createdAt: at, deletedAt: null },
		{ membershipId: newId(), userId: owner, joinedAt: at },
		at
	)
	const later = new Date(Date.now() + 86_400_000).toISOString()
	for (const userId of users.slice(1)) {
		await store.teams.invite(
			{ id: newId(), teamId, userId, role: 'member', invitedBy: owner, createdAt: at, expiresAt: later },
			at
		)
		await store.teams.acceptInvitation('streams', userId, at, { id: newId(), joinedAt: at })
	}
	store.close()
	return { keys, teamId }
}

interface OpenStream {
	socket: Socket
	/** When each config event arrived (performance.now()), in order. */
	arrivals: number[]
	connected: Promise<void>
}

/** A raw HTTP/1.1 GET /api/events: a fetch per stream would meet Bun's cap of 256 requests at once. */
function openStream(port: number, key: string): OpenStream {
	const socket = connect(port, '127.0.0.1')
	const arrivals: number[] = []
	let text = ''
	let counted = 0
	let ready: () => void = () => {}
	const connected = new Promise<void>((resolve) => {
		ready = resolve
	})
	socket.setEncoding('utf8')
	socket.on('connect', () => {
		socket.write(
			`GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nAccept: text/event-stream\r\n\r\n`
		)
	})
	socket.on('data', (chunk: string) => {
		const now = performance.now()
		text += chunk
		if (text.includes(': connected')) ready()
		for (let at = text.indexOf('event: config', counted); at !== -1; at = text.indexOf('event: config', counted)) {
			arrivals.push(now)
			counted = at + 1
		}
		// Keep only the tail a split marker could start in.
		if (text.length > 4096) {
			const cut = text.length - 64
			text = text.slice(cut)
			counted = Math.max(0, counted - cut)
		}
	})
	socket.on('error', () => ready())
	return { socket, arrivals, connected }
}

const percentile = (sorted: number[], p: number) =>
	sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN

export async function streamsScenario(binary: string): Promise<StreamFigures> {
	const seeded = await seed(join(ROOT, 'bench/.data/streams/cfgsync.db'), { configs: 1000, versionsEach: 1 })
	const { keys, teamId } = await seedTeam(seeded)
	const server = await listen(
		'cfgsync streams',
		[binary, 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', join(seeded.file, '..')],
		{
			CFGSYNC_MASTER_KEY: seeded.masterKey,
			// The push benchmark stores thousands of versions a second from one key: past CFGSYNC_QUOTA_PUSHES_PER_MINUTE
			// it would time 429s. The storage check still runs (a cached count); docs/performance.md.
			CFGSYNC_QUOTA_PUSHES_PER_MINUTE: '0',
			CFGSYNC_QUOTA_BYTES: String(1024 ** 4)
		}
	)
	try {
		const port = Number(new URL(server.url).port)
		// Warm: a first stream and push, so what is measured below is the streams, not code loading.
		const warm = openStream(port, keys[0] as string)
		await warm.connected
		const push = (i: number) =>
			fetch(`${server.url}/api/configs`, {
				method: 'POST',
				headers: { authorization: `Bearer ${keys[0]}`, 'content-type': 'application/json' },
				body: JSON.stringify({ name: 'live', tool: 'cursor', teamId, data: { i, pad: 'x'.repeat(1000) } })
			})
		await push(-1)
		await Bun.sleep(500)
		warm.socket.destroy()
		await Bun.sleep(500)
		const before = rssBytes(server.pids())
		const streams: OpenStream[] = []
		for (let user = 0; user < USERS; user++)
			for (let s = 0; s < STREAMS_EACH; s++) streams.push(openStream(port, keys[user] as string))
		await Promise.all(streams.map((stream) => stream.connected))
		await Bun.sleep(2_000)
		const after = rssBytes(server.pids())
		const sent: number[] = []
		for (let i = 0; i < PUSHES; i++) {
			sent.push(performance.now())
			const answer = await push(i)
			if (answer.status >= 300) throw new Error(`push answered ${answer.status}`)
			await Bun.sleep(250)
		}
		await Bun.sleep(1_000)
		const delays: number[] = []
		let missing = 0
		for (const stream of streams) {
			for (let i = 0; i < PUSHES; i++) {
				const arrived = stream.arrivals[i]
				if (arrived === undefined) missing++
				else delays.push(arrived - (sent[i] as number))
			}
			stream.socket.destroy()
		}
		delays.sort((a, b) => a - b)
		return {
			streams: streams.length,
			pushes: PUSHES,
			p50ms: percentile(delays, 0.5),
			p99ms: percentile(delays, 0.99),
			maxMs: delays[delays.length - 1] ?? Number.NaN,
			missing,
			bytesPerStream: (after - before) / streams.length
		}
	} finally {
		await server.stop()
	}
}

export function describeStreams(figures: StreamFigures): string {
	return `live changes: ${figures.streams} streams open on one instance (${USERS} team members × ${STREAMS_EACH}); ${figures.pushes} team pushes reached every stream in p50 ${figures.p50ms.toFixed(0)} ms, p99 ${figures.p99ms.toFixed(0)} ms, max ${figures.maxMs.toFixed(0)} ms${figures.missing ? `; ${figures.missing} events MISSING` : ''}; an idle stream costs ${(figures.bytesPerStream / 1024).toFixed(1)} KB of resident memory`
}

if (import.meta.main) {
	const binary = process.argv[2] ?? join(ROOT, 'dist', 'cfgsync-server')
	console.log(describeStreams(await streamsScenario(binary)))
}
