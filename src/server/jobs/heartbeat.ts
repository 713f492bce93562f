import { hostname } from 'node:os'
import { buildInfo } from '../build-info'
import type { Clock } from '../lib/clock'
import type { Sealer } from '../lib/crypto'
import { newId } from '../lib/ids'
import { KEY_CHECK, opensKeyCheck, PENDING_KEY_META } from '../lib/key-check'
import type { Logger } from '../lib/log'
import type { Store } from '../store/types'

/** How often a server reports itself. */
export const HEARTBEAT_MS = 1000
/** A server not heard from for this long is taken for gone (a rotation does not wait for it). */
export const LIVE_WITHIN_MS = 5000
/**
 * A server whose last report is older than this seals nothing (it answers writes with 503): it may
 * have been taken for gone and missed a rotation. Below LIVE_WITHIN_MS, so the two never overlap.
 */
export const SEAL_WITHIN_MS = 3000

/**
 * A server's id in `server_instances` says where to find it: `host=H pid=P build=VERSION+COMMIT id=R`,
 * R random (pids repeat across hosts and restarts). So `rekey`, stopping for a server that did not take
 * the new key, names something an operator can look for; nothing else reads the parts.
 */
export function instanceId(): string {
	const { version, commit } = buildInfo()
	return `host=${hostname().replace(/\s/g, '_') || 'unknown'} pid=${process.pid} build=${version}+${commit} id=${newId().slice(0, 8)}`
}

const ID_PARTS = /^host=(\S+) pid=(\d+) build=([^+\s]+)\+(\S+) id=\S+$/

/**
 * How `rekey` names an instance: host, pid and build from an id of this release (or later); an id of
 * another form is a release from before instances named themselves, which says nothing more.
 */
export function describeInstance(id: string): string {
	const parts = ID_PARTS.exec(id)
	if (!parts) return `instance ${id} (reports no host, pid or version: a release older than this one`
	const [, host, pid, version, commit] = parts
	return `instance on ${host} (pid ${pid}, cfgsync-server ${version} commit ${commit}`
}

/**
 * docs/operations.md key rotation, the servers' side. Every second a server (each worker too) takes a
 * rotation's new key as soon as `rekey` stores it, then reports that it lives and which key it seals
 * with, so `rekey` retires the old key only when every live server has switched. A server that finds
 * the database under a key it does not know, with no rotation pending (it could not see the
 * rotation, e.g. it was paused for longer than LIVE_WITHIN_MS), calls `onKeyLost` rather than seal
 * anything more under a retired key.
 */
export function startHeartbeat(
	deps: { store: Store; sealer: Sealer; clock: Clock; logger: Logger },
	onKeyLost: () => void
) {
	const id = instanceId()
	let keyId = deps.sealer.keyId()
	let lost = false
	// Boot has just read the database with this key.
	let reportedAt = deps.clock.now()

	async function beat() {
		const pending = await deps.store.meta.get(PENDING_KEY_META)
		if (pending !== undefined) deps.sealer.learn(pending)
		if (deps.sealer.keyId() !== keyId) {
			keyId = deps.sealer.keyId()
			deps.logger.info('sealing under the rotated master key', { keyId })
		}
		const at = deps.clock.now()
		await deps.store.instances.report({ id, keyId, seenAt: at })
		reportedAt = at
		if (pending !== undefined) return
		const check = await deps.store.meta.get(KEY_CHECK.meta)
		if (check !== undefined && !opensKeyCheck(deps.sealer, check) && !lost) {
			lost = true
			deps.logger.error(
				'the master key was rotated and this server does not have the new key; stopping (start it with the new key)'
			)
			onKeyLost()
		}
	}

	let running = Promise.resolve()
	const tick = () => {
		running = beat().catch(() => {
			// The database does not answer: the request path reports that; the next beat tries again.
		})
	}
	tick()
	const timer = setInterval(tick, HEARTBEAT_MS)
	timer.unref?.()
	return {
		id,
		/** One beat now, after any running one (tests drive the heartbeat with it). */
		beatNow: async () => {
			await running
			tick()
			await running
		},
		/** False when the last report is too old to be sure no rotation was missed. */
		sealingAllowed: () => !lost && deps.clock.now() - reportedAt < SEAL_WITHIN_MS,
		async stop() {
			clearInterval(timer)
			await running
			await deps.store.instances.forget(id).catch(() => {})
		}
	}
}
