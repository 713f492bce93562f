// Seeds a SQLite database for the benches (docs/performance.md). The users, keys and the bench user's hot
// configs go through the store; the filler versions, which are most of a large seed, are raw bulk inserts
// (prepared statements, one transaction per 50,000 versions, no journal while seeding), so 1M versions
// take about 30 s rather than minutes. Their data is sealed in the store's format under the master key
// and checked by opening a sample with the server's own sealer: the server reads it like any other.
import { Database } from 'bun:sqlite'
import { createCipheriv, createSecretKey, randomBytes } from 'node:crypto'
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, rmSync } from 'node:fs'
import { dirname } from 'node:path'
import { contentHash } from '../src/shared/content-hash'
import { createSealer, generateApiKey, generateMasterKey, sha256Hex } from '../src/server/lib/crypto'
import { newId } from '../src/server/lib/ids'
import { openSqliteStore } from '../src/server/store/sqlite'
import type { ConfigRow, VersionWithData } from '../src/server/store/types'

export interface Seeded {
	file: string
	masterKey: string
	/** Key of the user "bench" (pro plan), who owns the hot configs. */
	apiKey: string
	seconds: number
	/** Versions written (filler, hot configs and the deleted team's). */
	versions: number
	/** The team deleted 31 days ago (so due for the purge), when one was asked for. */
	deletedTeamId?: string
}

/** Data of about `bytes` bytes as UTF-8 JSON. */
export const payload = (bytes: number, tag = 0) => ({
	tag,
	settings: { theme: 'dark', fontSize: 14 },
	pad: 'x'.repeat(Math.max(0, bytes - 70))
})

const TOOLS = ['claude-code', 'cursor', 'windsurf', 'vscode', 'codex', 'gemini-cli'] as const
const TRANSACTION_VERSIONS = 50_000
const NONCE_BYTES = 12

/**
 * `configs` filler configs with `versionsEach` versions of ~256 bytes, spread
 * over 1,000 users, plus the bench user's hot configs: "hot" (1 KiB),
 * "big" (~512 KiB), "push-1k", "push-64k", "push-500k", and "history"
 * (200 versions of 64 KiB). With `deletedTeamConfigs`, a team deleted 31 days
 * ago holding that many configs of `versionsEach` versions (what the purge removes).
 */
export async function seed(
	file: string,
	options: { configs: number; versionsEach: number; deletedTeamConfigs?: number }
): Promise<Seeded> {
	const started = performance.now()
	if (existsSync(dirname(file))) rmSync(dirname(file), { recursive: true })
	mkdirSync(dirname(file), { recursive: true })
	const master = generateMasterKey()
	const sealer = createSealer(master)
	const store = openSqliteStore(file)
	const at = new Date().toISOString()
	const users: string[] = []
	for (let u = 0; u < 1000; u++) {
		const id = newId()
		await store.users.create({
			id,
			email: `filler${u}@example.test`,
			username: `filler${u}`,
			passwordHash: null,
			plan: 'pro',
			isAdmin: false,
			createdAt: at
		})
		users.push(id)
	}
	const benchUser = newId()
	await store.users.create({
		id: benchUser,
		email: 'bench@example.test',
		username: 'bench',
		passwordHash: null,
		plan: 'pro',
		isAdmin: false,
		createdAt: at
	})
	const apiKey = generateApiKey()
	await store.keys.issue({
		id: newId(),
		userId: benchUser,
		device: 'bench',
		keyHash: sha256Hex(apiKey),
		createdAt: at,
		lastUsedAt: null
	})
	for (let u = 0; u < 1000; u++) {
		await store.keys.issue({
			id: newId(),
			userId: users[u]!,
			device: 'filler',
			keyHash: sha256Hex(generateApiKey()),
			createdAt: at,
			lastUsedAt: null
		})
	}

	const build = (userId: string, name: string, tool: ConfigRow['tool'], datas: unknown[]) => {
		const id = newId()
		const versions: VersionWithData[] = datas.map((data, i) => {
			const versionId = newId()
			return {
				id: versionId,
				configId: id,
				version: i + 1,
				hash: contentHash(data),
				createdAt: at,
				sealed: sealer.seal(JSON.stringify(data), `${id}:${versionId}`)
			}
		})
		const last = versions[versions.length - 1]!
		const config: ConfigRow = {
			id,
			userId,
			teamId: null,
			name,
			tool,
			version: last.version,
			hash: last.hash,
			currentVersionId: last.id,
			createdAt: at,
			updatedAt: at
		}
		return { config, versions }
	}

	await store.configs.importMany([
		build(benchUser, 'hot', 'claude-code', [payload(1024)]),
		build(benchUser, 'big', 'claude-code', [payload(512 * 1024 - 100)]),
		build(benchUser, 'push-1k', 'cursor', [payload(1024)]),
		build(benchUser, 'push-64k', 'cursor', [payload(64 * 1024)]),
		build(benchUser, 'push-500k', 'cursor', [payload(500 * 1024)]),
		build(
			benchUser,
			'history',
			'vscode',
			Array.from({ length: 200 }, (_, i) => payload(64 * 1024, i))
		)
	])
	store.close()

	// The bulk: raw statements on the migrated file, with no other connection open.
	const db = new Database(file)
	db.run('PRAGMA journal_mode = OFF')
	db.run('PRAGMA synchronous = OFF')
	db.run('PRAGMA cache_size = -262144')
	const insertConfig = db.prepare(
		'INSERT INTO configs (id, user_id, team_id, name, tool, version, hash, current_version_id, created_at, updated_at, stored_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'
	)
	const insertVersion = db.prepare(
		'INSERT INTO config_versions (id, config_id, version, hash, data, created_at) VALUES (?, ?, ?, ?, ?, ?)'
	)
	// The filler's data repeats every `versionsEach` versions: serialised and hashed once each.
	const datas = Array.from({ length: options.versionsEach }, (_, v) => {
		const data = payload(256, v)
		return { text: Buffer.from(JSON.stringify(data)), hash: contentHash(data) }
	})
	// The store's sealed format (src/server/lib/crypto.ts): nonce, AES-256-GCM ciphertext, tag; the AAD
	// is "configId:versionId". Nonces drawn in bulk: one randomBytes call per transaction, not per row.
	const key = createSecretKey(master)
	let nonces = Buffer.alloc(0)
	let nonceAt = 0
	const seal = (text: Buffer, aad: string) => {
		if (nonceAt + NONCE_BYTES > nonces.length) {
			nonces = randomBytes(NONCE_BYTES * TRANSACTION_VERSIONS)
			nonceAt = 0
		}
		const nonce = nonces.subarray(nonceAt, nonceAt + NONCE_BYTES)
		nonceAt += NONCE_BYTES
		const cipher = createCipheriv('aes-256-gcm', key, nonce)
		cipher.setAAD(Buffer.from(aad, 'utf8'))
		const body = cipher.update(text)
		cipher.final()
		return Buffer.concat([nonce, body, cipher.getAuthTag()])
	}
	const sample: { id: string; configId: string }[] = []
	let versions = 205
	const writeConfigs = db.transaction(
		(from: number, to: number, owner: (c: number) => [string, string | null, string]) => {
			for (let c = from; c < to; c++) {
				const [userId, teamId, name] = owner(c)
				const configId = newId()
				let bytes = 0
				let versionId = ''
				for (let v = 0; v < options.versionsEach; v++) {
					versionId = newId()
					const sealed = seal(datas[v]!.text, `${configId}:${versionId}`)
					bytes += sealed.length
					insertVersion.run(versionId, configId, v + 1, datas[v]!.hash, sealed, at)
				}
				const last = datas[options.versionsEach - 1]!
				insertConfig.run(
					configId,
					userId,
					teamId,
					name,
					TOOLS[c % 6]!,
					options.versionsEach,
					last.hash,
					versionId,
					at,
					at,
					bytes
				)
				if (c % 9973 === 0) sample.push({ id: versionId, configId })
			}
			versions += (to - from) * options.versionsEach
		}
	)
	const perTransaction = Math.max(1, Math.floor(TRANSACTION_VERSIONS / options.versionsEach))
	const fill = (count: number, owner: (c: number) => [string, string | null, string]) => {
		for (let c = 0; c < count; c += perTransaction) writeConfigs(c, Math.min(count, c + perTransaction), owner)
	}
	fill(options.configs, (c) => [users[c % 1000]!, null, `cfg-${Math.floor(c / 1000)}`])

	let deletedTeamId: string | undefined
	if (options.deletedTeamConfigs) {
		const teamId = newId()
		deletedTeamId = teamId
		const deletedAt = new Date(Date.now() - 31 * 86_400_000).toISOString()
		db.prepare('INSERT INTO teams (id, name, slug, created_at, deleted_at) VALUES (?, ?, ?, ?, ?)').run(
			teamId,
			'Gone',
			'gone',
			deletedAt,
			deletedAt
		)
		db.prepare('INSERT INTO team_members (id, team_id, user_id, role, joined_at) VALUES (?, ?, ?, ?, ?)').run(
			newId(),
			teamId,
			users[0]!,
			'owner',
			deletedAt
		)
		fill(options.deletedTeamConfigs, (c) => [users[0]!, teamId, `team-cfg-${c}`])
	}
	db.run('PRAGMA journal_mode = WAL')
	// Fails the seed if the format above drifts from the server's.
	const read = db.prepare('SELECT data FROM config_versions WHERE id = ?')
	for (const { id, configId } of sample) {
		const row = read.get(id) as { data: Uint8Array }
		sealer.open(row.data, `${configId}:${id}`)
	}
	db.close()
	// On disk before the server opens it: written with no journal and no sync, a 1M-version seed left
	// ~680 MB in the page cache that the server's first WAL checkpoint had to flush, a 0.4 s fsync
	// counted against whatever job the bench was timing (docs/performance.md#purge).
	const fd = openSync(file, 'r')
	try {
		fsyncSync(fd)
	} finally {
		closeSync(fd)
	}
	return {
		file,
		masterKey: master.toString('base64'),
		apiKey,
		seconds: (performance.now() - started) / 1000,
		versions,
		deletedTeamId
	}
}

if (import.meta.main) {
	const [file = 'bench/.data/seed/cfgsync.db', configs = '1000', versions = '1'] = process.argv.slice(2)
	const seeded = await seed(file, { configs: Number(configs), versionsEach: Number(versions) })
	console.log(JSON.stringify(seeded))
}
