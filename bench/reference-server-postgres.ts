// The PostgreSQL twin of reference-server.ts: a hand-written Bun.serve + Bun.SQL server doing
// exactly what cfgsync does on PostgreSQL for the benchmarked paths and nothing else (no framework,
// no validation, no logging). The same statements (src/server/store/postgres/keys.ts, configs.ts, audit.ts,
// locks.ts, and src/server/store/rows/keys.ts; checked against cfgsync's with log_statement = all), the same
// pool, the same crypto and the same response headers. The ceiling cfgsync on PostgreSQL is measured against.
// argv: port databaseUrl masterKeyBase64
import { SQL } from 'bun'
import { createCipheriv, createDecipheriv, createSecretKey, randomBytes } from 'node:crypto'
import { canonicalJson } from '../src/shared/content-hash'

const [port, url, masterKey] = process.argv.slice(2) as [string, string, string]
// The same pool as cfgsync's store (src/server/store/postgres/client.ts); tagged queries are named prepared statements, as cfgsync's are.
const sql = new SQL({ url, max: 10, idleTimeout: 0 })
const key = createSecretKey(Buffer.from(masterKey, 'base64'))

type Caller = { user_id: string; email: string; username: string }
type ConfigRow = { id: string; version: number; hash: string }

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

/**
 * cfgsync's push of a personal config on PostgreSQL, one transaction: the advisory lock on
 * (owner, name, tool), the config's row FOR UPDATE (the same ten columns), the pending
 * rotation key, the version, the config, the audit event naming the key's device.
 */
const push = (
	caller: Caller,
	keyHash: string,
	address: string,
	name: string,
	tool: string,
	hash: string,
	json: string
) =>
	sql.begin(async (tx) => {
		await tx`SELECT pg_advisory_xact_lock(hashtextextended(${['config', '', caller.user_id, name, tool].join('\u001f')}, 0))`
		const [current] =
			(await tx`SELECT id, user_id, team_id, name, tool, version, hash, current_version_id, created_at, updated_at FROM configs
			WHERE user_id = ${caller.user_id} AND team_id IS NULL AND name = ${name} AND tool = ${tool} FOR UPDATE`) as ConfigRow[]
		if (!current) return undefined
		if (current.hash === hash)
			return { id: current.id, name, tool, message: 'No change: the data equals the current version.', noChange: true }
		// The pending key of a key rotation: sealed under it when there is one (there is none here).
		await tx`SELECT value FROM meta WHERE key = 'master_key_next'`
		const versionId = Bun.randomUUIDv7()
		const version = current.version + 1
		const at = new Date().toISOString()
		await tx`INSERT INTO config_versions (id, config_id, version, hash, data, created_at) VALUES (${versionId}, ${current.id}, ${version}, ${hash}, ${seal(json, `${current.id}:${versionId}`)}, ${at})`
		await tx`UPDATE configs SET version = ${version}, hash = ${hash}, current_version_id = ${versionId}, updated_at = ${at} WHERE id = ${current.id}`
		await tx`INSERT INTO audit_events (id, at, type, actor_user_id, actor_username, actor_device, address, team_id, subject_user_id, target_type, target_id, target_name, details)
			VALUES (${Bun.randomUUIDv7()}, ${at}, 'config.pushed', ${caller.user_id}, ${caller.username}, COALESCE((SELECT device FROM api_keys WHERE key_hash = ${keyHash}), ${null}),
				${address}, ${null}, ${null}, 'config', ${current.id}, ${`${tool}/${name}`}, ${JSON.stringify({ version })})`
		return { id: current.id, name, tool, version, updatedAt: at }
	})

// docs/api.md headers, which every cfgsync response carries; the config's hash as ETag where cfgsync sends one.
const SECURITY = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' }
const JSON_TYPE = { 'content-type': 'application/json;charset=utf-8' }
const json = (body: string, headers: Record<string, string> = {}) =>
	new Response(body, { headers: { ...JSON_TYPE, ...SECURITY, ...headers } })
const failure = (status: number, code: string) =>
	new Response(`{"error":"${code}","code":"${code}"}`, { status, headers: { ...JSON_TYPE, ...SECURITY } })

const server = Bun.serve({
	port: Number(port),
	hostname: '127.0.0.1',
	reusePort: false,
	async fetch(request) {
		const auth = request.headers.get('authorization') ?? ''
		const keyHash = Bun.CryptoHasher.hash('sha256', auth.slice(7), 'hex')
		const [caller] =
			(await sql`SELECT k.user_id, u.email, u.username FROM api_keys k INNER JOIN users u ON u.id = k.user_id WHERE k.key_hash = ${keyHash}`) as Caller[]
		if (!caller) return failure(401, 'unauthorized')
		const url = new URL(request.url)
		if (url.pathname === '/api/me') return json(JSON.stringify({ email: caller.email, username: caller.username }))
		if (url.pathname === '/api/configs/latest') {
			const [row] = await sql`SELECT c.id, c.name, c.tool, c.version, c.hash, c.current_version_id, c.updated_at, v.data
				FROM configs c INNER JOIN config_versions v ON v.id = c.current_version_id
				WHERE c.user_id = ${caller.user_id} AND c.team_id IS NULL AND c.name = ${url.searchParams.get('name') ?? ''} AND c.tool = ${url.searchParams.get('tool') ?? ''}`
			if (!row) return failure(404, 'not_found')
			const head = JSON.stringify({
				id: row.id,
				name: row.name,
				tool: row.tool,
				version: row.version,
				hash: row.hash,
				updatedAt: row.updated_at
			})
			return json(`${head.slice(0, -1)},"data":${open(row.data, `${row.id}:${row.current_version_id}`)}}`, {
				etag: `"${row.hash}"`,
				'cache-control': 'no-store'
			})
		}
		if (url.pathname === '/api/configs' && request.method === 'POST') {
			const body = (await request.json()) as { name: string; tool: string; data: unknown }
			const hash = Bun.CryptoHasher.hash('sha256', canonicalJson(body.data), 'hex')
			const result = await push(
				caller,
				keyHash,
				server.requestIP(request)?.address ?? 'unknown',
				body.name,
				body.tool,
				hash,
				JSON.stringify(body.data)
			)
			return result ? json(JSON.stringify(result), { etag: `"${hash}"` }) : failure(404, 'not_found')
		}
		return failure(404, 'not_found')
	}
})
console.log(JSON.stringify({ msg: 'listening', port: server.port }))
