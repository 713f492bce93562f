// Seeds a database through the data layer (Store.importMany, one transaction per batch).
import { existsSync, mkdirSync, rmSync } from 'node:fs'
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
}

/** Data of about `bytes` bytes as UTF-8 JSON. */
export const payload = (bytes: number, tag = 0) => ({
	tag,
	settings: { theme: 'dark', fontSize: 14 },
	pad: 'x'.repeat(Math.max(0, bytes - 70))
})

/**
 * `configs` filler configs with `versionsEach` versions of ~256 bytes, spread
 * over 1,000 users, plus the bench user's hot configs: "hot" (1 KiB),
 * "big" (~512 KiB), "push-1k", "push-64k", "push-500k", and "history"
 * (200 versions of 64 KiB).
 */
export async function seed(file: string, options: { configs: number; versionsEach: number }): Promise<Seeded> {
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

	const tools = ['claude-code', 'cursor', 'windsurf', 'vscode', 'codex', 'gemini-cli'] as const
	const batch: { config: ConfigRow; versions: VersionWithData[] }[] = []
	for (let c = 0; c < options.configs; c++) {
		const datas = Array.from({ length: options.versionsEach }, (_, v) => payload(256, v))
		batch.push(build(users[c % 1000]!, `cfg-${Math.floor(c / 1000)}`, tools[c % 6]!, datas))
		if (batch.length === 2000) await store.configs.importMany(batch.splice(0))
	}
	if (batch.length > 0) await store.configs.importMany(batch)
	store.close()
	return { file, masterKey: master.toString('base64'), apiKey, seconds: (performance.now() - started) / 1000 }
}

if (import.meta.main) {
	const [file = 'bench/.data/seed/cfgsync.db', configs = '1000', versions = '1'] = process.argv.slice(2)
	const seeded = await seed(file, { configs: Number(configs), versionsEach: Number(versions) })
	console.log(JSON.stringify(seeded))
}
