import type { Scope } from './scope'
import type { SyncState } from './state'
import { type Files, ownValue } from './sync/engine'

/**
 * A config made with `push TOOL --only PATH...` holds exactly those files
 * (docs/sync-model.md), so later runs without PATHs must not take in the
 * tool's other files again: the state remembers the PATHs (`only`), and a
 * plain push, pull, sync, watch or status looks at the files the config
 * holds (its base and the server's files) and at new files inside the
 * directories named. `push TOOL PATH...` adds files to the list.
 */

const covers = (pins: readonly string[], key: string) =>
	pins.some((pin) => (pin.endsWith('/') ? key.startsWith(pin) : pin === key || key.startsWith(`${pin}/`)))

/** The scope of a run, kept to the config's pinned files when it was made with --only and no PATHs are named. */
export function pinnedScope<S extends Scope>(
	scope: S,
	state: SyncState | undefined,
	remote: Files | undefined,
	named?: string[]
): S {
	const pins = state?.only
	if (pins === undefined || named !== undefined) return scope
	const keep = (key: string) =>
		ownValue(state?.files, key) !== undefined || ownValue(remote, key) !== undefined || covers(pins, key)
	return { ...scope, keys: scope.keys.filter(keep) }
}

/** The PATHs a config is pinned to after a run: set by push --only, widened by push PATH..., else kept. */
export function nextPins(
	state: SyncState | undefined,
	options: { mode: string; only?: boolean; named?: string[] }
): string[] | undefined {
	if (options.mode === 'push' && options.only && options.named) return [...options.named].sort()
	if (options.mode === 'push' && state?.only && options.named)
		return [...new Set([...state.only, ...options.named])].sort()
	return state?.only
}
