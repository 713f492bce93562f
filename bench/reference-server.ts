// A hand-written Bun + bun:sqlite server doing exactly cfgsync's hot paths and
// nothing else (no framework, no validation library, no logging), over the same
// database file and master key. It is the ceiling the real server is measured
// against. argv: port dbFile masterKeyBase64
import { Database } from 'bun:sqlite'
import { createCipheriv, createDecipheriv, createSecretKey, randomBytes } from 'node:crypto'
import { canonicalJson } from '../src/shared/content-hash'

const [port, file, masterKey] = process.argv.slice(2) as [string, string, string]
const db = new Database(file, { strict: true })
db.run('PRAGMA busy_timeout = 5000')
db.run('PRAGMA synchronous = NORMAL')
const key = createSecretKey(Buffer.from(masterKey, 'base64'))

type Caller = { user_id: string; email: string; username: string }
const callerBy = db.query<Caller, [string]>(
	'SELECT k.user_id, u.email, u.username FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = ?'
)
const latestBy = db.query<
	{
		id: string
		name: string
		tool: string
		version: number
		hash: string
		updated_at: string
		vid: string
		data: Uint8Array
	},
	[string, string, string]
>(
	'SELECT c.id, c.name, c.tool, c.version, c.hash, c.updated_at, v.id AS vid, v.data FROM configs c JOIN config_versions v ON v.id = c.current_version_id WHERE c.user_id = ? AND c.team_id IS NULL AND c.name = ? AND c.tool = ?'
)
const metaBy = db.query<{ id: string; version: number; hash: string }, [string, string, string]>(
	'SELECT id, version, hash FROM configs WHERE user_id = ? AND team_id IS NULL AND name = ? AND tool = ?'
)
const insertVersion = db.query(
	'INSERT INTO config_versions (id, config_id, version, hash, data, created_at) VALUES (?, ?, ?, ?, ?, ?)'
)
const updateConfig = db.query(
	'UPDATE configs SET version = ?, hash = ?, current_version_id = ?, updated_at = ? WHERE id = ?'
)
// docs/operations.md: a push records its audit event in its own transaction, the key's device looked up by its hash.
const insertEvent = db.query(
	"INSERT INTO audit_events (id, at, type, actor_user_id, actor_username, actor_device, address, team_id, subject_user_id, target_type, target_id, target_name, details) VALUES (?, ?, 'config.pushed', ?, ?, (SELECT device FROM api_keys WHERE key_hash = ?), ?, NULL, NULL, 'config', ?, ?, ?)"
)
// Immediate, as cfgsync does: a deferred transaction that upgrades to a write gets SQLITE_BUSY at once when cfgsync holds the lock.
const push = db.transaction(
	(caller: Caller, keyHash: string, address: string, name: string, tool: string, hash: string, json: string) => {
		const userId = caller.user_id
		const current = metaBy.get(userId, name, tool)
		if (!current) return undefined
		if (current.hash === hash) return { id: current.id, version: current.version, noChange: true }
		const versionId = Bun.randomUUIDv7()
		const version = current.version + 1
		const at = new Date().toISOString()
		insertVersion.run(versionId, current.id, version, hash, seal(json, `${current.id}:${versionId}`), at)
		updateConfig.run(version, hash, versionId, at, current.id)
		insertEvent.run(
			Bun.randomUUIDv7(),
			at,
			userId,
			caller.username,
			keyHash,
			address,
			current.id,
			`${tool}/${name}`,
			JSON.stringify({ version })
		)
		return { id: current.id, version, updatedAt: at }
	}
)

function seal(text: string, aad: string): Buffer {
	const nonce = randomBytes(12)
	const cipher = createCipheriv('aes-256-gcm', key, nonce)
	cipher.setAAD(Buffer.from(aad))
	const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()])
	return Buffer.concat([nonce, body, cipher.getAuthTag()])
}

function open(sealed: Uint8Array, aad: string): string {
	const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength)
	const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12))
	decipher.setAAD(Buffer.from(aad))
	decipher.setAuthTag(bytes.subarray(bytes.length - 16))
	return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString('utf8')
}

const unauthorized = () => new Response('{"error":"unauthorized","code":"unauthorized"}', { status: 401 })
// docs/api.md headers, which every cfgsync response carries.
const json = (body: string) =>
	new Response(body, {
		headers: {
			'content-type': 'application/json',
			'x-content-type-options': 'nosniff',
			'referrer-policy': 'no-referrer'
		}
	})
// docs/api.md: a config's data leaves with its ETag, never to be stored by a cache, and a matching If-None-Match gets 304.
const withData = (body: string, hash: string) =>
	new Response(body, {
		headers: {
			'content-type': 'application/json',
			'x-content-type-options': 'nosniff',
			'referrer-policy': 'no-referrer',
			etag: `"${hash}"`,
			'cache-control': 'no-store'
		}
	})
const notModified = (hash: string) =>
	new Response(null, {
		status: 304,
		headers: { etag: `"${hash}"`, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' }
	})

const server = Bun.serve({
	port: Number(port),
	hostname: '127.0.0.1',
	reusePort: false,
	async fetch(request) {
		const auth = request.headers.get('authorization') ?? ''
		const keyHash = Bun.CryptoHasher.hash('sha256', auth.slice(7), 'hex')
		const caller = callerBy.get(keyHash)
		if (!caller) return unauthorized()
		const url = new URL(request.url)
		if (url.pathname === '/api/me') return json(JSON.stringify({ email: caller.email, username: caller.username }))
		if (url.pathname === '/api/configs/latest') {
			const row = latestBy.get(caller.user_id, url.searchParams.get('name') ?? '', url.searchParams.get('tool') ?? '')
			if (!row) return new Response('{}', { status: 404 })
			if (request.headers.get('if-none-match') === `"${row.hash}"`) return notModified(row.hash)
			const head = JSON.stringify({
				id: row.id,
				name: row.name,
				tool: row.tool,
				version: row.version,
				hash: row.hash,
				updatedAt: row.updated_at
			})
			return withData(`${head.slice(0, -1)},"data":${open(row.data, `${row.id}:${row.vid}`)}}`, row.hash)
		}
		if (url.pathname === '/api/configs' && request.method === 'POST') {
			const body = (await request.json()) as { name: string; tool: string; data: unknown }
			const hash = Bun.CryptoHasher.hash('sha256', canonicalJson(body.data), 'hex')
			const result = push.immediate(
				caller,
				keyHash,
				server.requestIP(request)?.address ?? 'unknown',
				body.name,
				body.tool,
				hash,
				JSON.stringify(body.data)
			)
			if (!result) return new Response('{}', { status: 404 })
			// As cfgsync answers a push: the stored version's ETag.
			return new Response(JSON.stringify(result), {
				headers: {
					'content-type': 'application/json',
					'x-content-type-options': 'nosniff',
					'referrer-policy': 'no-referrer',
					etag: `"${hash}"`
				}
			})
		}
		return new Response('{}', { status: 404 })
	}
})
console.log(JSON.stringify({ msg: 'listening', port: server.port }))
