import { chmodSync, copyFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { MASTER_KEY_FILE, openStore, readMasterKey } from '../boot'
import { loadConfig } from '../config'
import { systemClock } from '../lib/clock'
import {
	createSealer,
	generateMasterKey,
	masterKeyId,
	openPendingKey,
	parseMasterKey,
	sealPendingKey,
	type Sealer
} from '../lib/crypto'
import {
	KEY_CHECK,
	opensKeyCheck,
	parseRetiredKeys,
	PENDING_KEY_META,
	RETIRED_KEYS_META,
	sealKeyCheck,
	withRetiredKey
} from '../lib/key-check'
import { HEARTBEAT_MS, LIVE_WITHIN_MS } from '../jobs/heartbeat'

/** docs/operations.md: an instance heard from within this long must acknowledge a rotation's new key. */
const ROLL_CALL_MS = 60_000
import { ADMIN_COMMAND, createAuditEvents } from '../modules/audit/event'
import { SETUP_TOKEN_META, type Store } from '../store/types'
import { giveToDataDirOwner } from '../lib/ownership'
import { CliError, parseCommand, usageError } from './io'
import { OPTIONS } from './commands'

/**
 * docs/operations.md `rekey`: re-encrypts every sealed record and the check value
 * under a new master key, in batches, while servers run or not, and ends with
 * nothing in the database that the old key opens. Each step leaves every
 * record readable under exactly one of the two keys, so a kill at any point
 * is finished by running it again (with the old key, or with the new one once saved):
 *   1. the old key's id is listed as retired and the new key is stored in
 *      `meta`, sealed under the old one: from then on writes seal under it and
 *      running servers take it within a heartbeat (jobs/heartbeat.ts);
 *   2. records under the old key are re-sealed, compare-and-swap, until a pass finds none;
 *   3. the check value is re-sealed under the new key;
 *   4. the new key is saved (the old key file kept beside it), or printed for CFGSYNC_MASTER_KEY;
 *   5. once every live server reports sealing under the new key, the pending
 *      record is deleted: the old key now opens nothing, and a server started
 *      with it refuses, saying the key was rotated.
 */
export async function rekeyCommand(args: string[]) {
	const { values, positionals } = parseCommand(args, OPTIONS.rekey)
	if (positionals.length > 0) throw usageError(`unexpected argument "${positionals[0]}"`)
	const batch = values.batch === undefined ? 500 : Number(values.batch)
	if (!Number.isInteger(batch) || batch < 1 || batch > 100_000)
		throw usageError('--batch takes a number of records (1-100000)')
	const waitSeconds = values['wait-seconds'] === undefined ? 60 : Number(values['wait-seconds'])
	if (!Number.isInteger(waitSeconds) || waitSeconds < 0 || waitSeconds > 3600)
		throw usageError('--wait-seconds takes a number of seconds (0-3600)')
	// One batch at a time: two connections are plenty, and leave the fleet's share to the servers.
	const configured = loadConfig({ dataDir: values['data-dir'] })
	const config = { ...configured, databasePool: Math.min(configured.databasePool, 2) }
	const oldKey = keyOrFail(() => readMasterKey(config))
	if (!oldKey)
		throw new CliError(
			`no master key to rotate: set CFGSYNC_MASTER_KEY or keep ${join(config.dataDir, MASTER_KEY_FILE)}`
		)
	const requested =
		values['new-key-file'] === undefined
			? undefined
			: keyOrFail(() => parseMasterKey(readFileSync(resolve(values['new-key-file'] as string), 'utf8')))
	const store = await openStore(
		config,
		(file) => {
			throw new CliError(`no database at ${file}: nothing to rotate`)
		},
		{ secureDelete: true }
	)
	try {
		const old = createSealer(oldKey)
		const check = await store.meta.get(KEY_CHECK.meta)
		if (check === undefined)
			throw new CliError('the database has no master-key check value yet: start the server once first')
		const pending = await store.meta.get(PENDING_KEY_META)
		const inProgress = pending === undefined ? undefined : openPendingKey(old, pending)
		if (pending !== undefined && !inProgress && opensKeyCheck(old, check)) {
			// Steps 1-4 were done and the new key saved, which is the key given now: only step 5 is left.
			process.stderr.write('cfgsync-server: finishing a key rotation whose new key was saved\n')
			await retireOldKey(store, old.keyId(), waitSeconds)
			process.stdout.write('the key rotation is finished: the old master key opens nothing in the database\n')
			return
		}
		if (!opensKeyCheck(old, check) && !(inProgress && opensKeyCheck(createSealer(inProgress), check))) {
			const retired = parseRetiredKeys(await store.meta.get(RETIRED_KEYS_META)).find(
				(entry) => entry.id === masterKeyId(oldKey)
			)
			if (retired)
				throw new CliError(
					`this master key was rotated on ${retired.rotatedAt} and opens nothing any more: use the new key; nothing was changed`
				)
			throw new CliError('the master key does not open this database; nothing was changed')
		}
		if (inProgress && requested && !inProgress.equals(requested)) {
			throw new CliError(
				'a rotation to another key is under way: run rekey without --new-key-file (or with that key) to finish it first'
			)
		}
		const newKey = inProgress ?? requested ?? generateMasterKey()
		if (newKey.equals(oldKey)) throw new CliError('the new key is the current key; give another one')
		const next = createSealer(newKey)
		if (!inProgress) {
			await store.meta.set(
				RETIRED_KEYS_META,
				withRetiredKey(
					await store.meta.get(RETIRED_KEYS_META),
					masterKeyId(oldKey),
					new Date(systemClock.now()).toISOString()
				)
			)
			await store.meta.set(PENDING_KEY_META, sealPendingKey(old, newKey))
		} else process.stderr.write('cfgsync-server: finishing a key rotation that was interrupted\n')

		// docs/operations.md: every instance heard from in the last minute takes the new key before anything is re-encrypted.
		await rollCall(store, next.keyId(), waitSeconds, 'before')
		const resealed = await resealAll(store, old, next, batch)
		// The fleet's kept setup address is sealed too: dropped, its link stays usable; the next start makes a new one.
		await store.meta.delete(SETUP_TOKEN_META)
		await store.meta.set(KEY_CHECK.meta, sealKeyCheck(next))
		// Saved before the pending record goes: until then the database still holds the new key.
		const where = saveKey(config, oldKey, newKey)
		await retireOldKey(store, next.keyId(), waitSeconds)
		await store.audit.record(
			createAuditEvents(systemClock)('master_key.rotated', ADMIN_COMMAND, {
				target: { type: 'server' },
				details: { records: resealed }
			})
		)
		process.stdout.write(
			`re-encrypted ${resealed} record${resealed === 1 ? '' : 's'} under the new master key; the old key opens nothing in the database now; ${where}\n`
		)
	} finally {
		store.close()
	}
}

/**
 * Step 5: waits until every live server seals under the new key (`newKeyId`), then deletes the
 * pending record, the last thing the old key opens. A server that does not switch in time stops
 * the command, with the rotation left pending (safe: run rekey again).
 */
async function retireOldKey(store: Store, newKeyId: string, waitSeconds: number) {
	await rollCall(store, newKeyId, waitSeconds, 'after')
	await store.meta.delete(PENDING_KEY_META)
}

/**
 * docs/operations.md "A mixed fleet during a rolling upgrade": waits until every instance with a heartbeat in the last
 * ROLL_CALL_MS reports sealing under the new key. One that does not within the wait (paused with
 * SIGSTOP, hung, or of a release that does not take part in rotations) stops rekey, named: before the
 * re-encryption nothing was re-encrypted; after it the rotation stays pending, which is safe.
 */
async function rollCall(store: Store, newKeyId: string, waitSeconds: number, stage: 'before' | 'after') {
	const deadline = Date.now() + waitSeconds * 1000
	for (;;) {
		const now = Date.now()
		const behind = (await store.instances.seenSince(now - ROLL_CALL_MS)).filter((server) => server.keyId !== newKeyId)
		if (behind.length === 0) return
		if (now >= deadline) {
			const named = behind
				.map(
					(server) =>
						`instance ${server.id} (last heartbeat ${Math.max(0, Math.round((now - server.seenAt) / 1000))} s ago${now - server.seenAt > LIVE_WITHIN_MS ? ', paused or stopped' : ''})`
				)
				.join(', ')
			throw new CliError(
				stage === 'before'
					? `${named} did not take the new key within ${waitSeconds} s: a paused or hung server, or one of a release that does not take part in key rotations; nothing was re-encrypted. Resume, upgrade or stop it (a stopped one is forgotten a minute after its last heartbeat), then run rekey again`
					: `${named} did not switch to the new key within ${waitSeconds} s; the rotation stays pending and safe: resume, restart or stop it, then run rekey again to finish`
			)
		}
		await Bun.sleep(HEARTBEAT_MS / 4)
	}
}

const keyOrFail = <T>(read: () => T): T => {
	try {
		return read()
	} catch (error) {
		throw new CliError((error as Error).message)
	}
}

/** Step 2: passes over every record until one finds nothing left under the old key (writes racing a pass are caught by the next). */
async function resealAll(store: Store, old: Sealer, next: Sealer, batch: number): Promise<number> {
	let total = 0
	for (;;) {
		let changedThisPass = 0
		let after: string | null = null
		for (;;) {
			const page = await store.configs.sealedPage(after, batch)
			if (page.length === 0) break
			after = page[page.length - 1]!.id
			const swaps: { id: string; from: Uint8Array; to: Uint8Array }[] = []
			for (const record of page) {
				const aad = `${record.configId}:${record.id}`
				if (opens(next, record.sealed, aad)) continue
				if (!opens(old, record.sealed, aad))
					throw new CliError(`version ${record.id} opens under neither key; stopping (nothing else was changed)`)
				swaps.push({ id: record.id, from: record.sealed, to: next.seal(old.openBytes(record.sealed, aad), aad) })
			}
			if (swaps.length > 0) changedThisPass += await store.configs.reseal(swaps)
		}
		total += changedThisPass
		if (changedThisPass === 0) return total
	}
}

function opens(sealer: Sealer, sealed: Uint8Array, aad: string): boolean {
	try {
		sealer.openBytes(sealed, aad)
		return true
	} catch {
		return false
	}
}

/** Step 4: the new key where the old one came from; the old key file is kept (backups made before need it). */
function saveKey(config: ReturnType<typeof loadConfig>, oldKey: Buffer, newKey: Buffer): string {
	const text = `${newKey.toString('base64')}\n`
	if (config.masterKey !== undefined) {
		process.stdout.write(`new master key (set CFGSYNC_MASTER_KEY to it on every server, then restart them):\n${text}`)
		return 'CFGSYNC_MASTER_KEY still holds the old key: update it now on every server (running servers switched already; one started with the old key refuses to start)'
	}
	const keyFile = join(config.dataDir, MASTER_KEY_FILE)
	const kept = `${keyFile}.before-rekey-${new Date().toISOString().replace(/[:.]/g, '-')}`
	if (existsSync(keyFile) && parseMasterKey(readFileSync(keyFile, 'utf8')).equals(oldKey)) copyFileSync(keyFile, kept)
	const temporary = `${keyFile}.${process.pid}.tmp`
	writeFileSync(temporary, text, { mode: 0o600 })
	chmodSync(temporary, 0o600)
	giveToDataDirOwner(config.dataDir, [temporary, kept])
	renameSync(temporary, keyFile)
	return `${keyFile} holds the new key; the old one is kept as ${kept} (backups made before today need it). Running servers switched already; nothing needs a restart.`
}
