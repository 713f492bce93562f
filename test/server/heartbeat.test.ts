import { expect, test } from 'bun:test'
import { startHeartbeat, SEAL_WITHIN_MS } from '../../src/server/jobs/heartbeat'
import { manualClock } from '../../src/server/lib/clock'
import { createSealer, generateMasterKey, masterKeyId, sealPendingKey } from '../../src/server/lib/crypto'
import { KEY_CHECK, PENDING_KEY_META, sealKeyCheck } from '../../src/server/lib/key-check'
import { memoryLogger } from '../../src/server/lib/log'
import { openTestStore } from '../support/engine'

// docs/operations.md: running servers take a rotation's new key while it is pending, report which key they
// seal with, and never seal under a key the rotation retired without them.

test('a server takes the pending key within a beat, reports it, and seals under it from then on', async () => {
	const store = openTestStore()
	const clock = manualClock()
	const oldKey = generateMasterKey()
	const newKey = generateMasterKey()
	const sealer = createSealer(oldKey)
	await store.meta.set(KEY_CHECK.meta, sealKeyCheck(sealer))
	const heartbeat = startHeartbeat({ store, sealer, clock, logger: memoryLogger() }, () => {
		throw new Error('the key was not lost')
	})
	await heartbeat.beatNow()
	expect(await store.instances.seenSince(clock.now() - 1000)).toEqual([
		{ id: heartbeat.id, keyId: masterKeyId(oldKey), seenAt: clock.now() }
	])

	await store.meta.set(PENDING_KEY_META, sealPendingKey(createSealer(oldKey), newKey))
	clock.advance(1000)
	await heartbeat.beatNow()
	expect((await store.instances.seenSince(clock.now() - 1000)).map((row) => row.keyId)).toEqual([masterKeyId(newKey)])
	// With the pending record gone (the rotation finished), new records still seal under the new key.
	await store.meta.delete(PENDING_KEY_META)
	const sealed = sealer.seal('data', 'aad')
	expect(createSealer(newKey).open(sealed, 'aad')).toBe('data')
	expect(() => createSealer(oldKey).open(sealed, 'aad')).toThrow()
	await heartbeat.stop()
	expect(await store.instances.seenSince(0)).toEqual([])
	store.close()
})

test('a server that missed the rotation (paused past the roll call) stops sealing, then stops', async () => {
	const store = openTestStore()
	const clock = manualClock()
	const sealer = createSealer(generateMasterKey())
	await store.meta.set(KEY_CHECK.meta, sealKeyCheck(sealer))
	let lost = 0
	const logger = memoryLogger()
	const heartbeat = startHeartbeat({ store, sealer, clock, logger }, () => lost++)
	await heartbeat.beatNow()
	expect(heartbeat.sealingAllowed()).toBe(true)
	// Paused: no report for longer than SEAL_WITHIN_MS, so it must not seal until it has looked again.
	clock.advance(SEAL_WITHIN_MS + 1)
	expect(heartbeat.sealingAllowed()).toBe(false)
	// Meanwhile a rotation finished without it: the check value is under a key it never saw.
	await store.meta.set(KEY_CHECK.meta, sealKeyCheck(createSealer(generateMasterKey())))
	await heartbeat.beatNow()
	expect(lost).toBe(1)
	expect(heartbeat.sealingAllowed()).toBe(false)
	logger.flush()
	expect(logger.lines.join('\n')).toContain('the master key was rotated')
	await heartbeat.stop()
	store.close()
})
