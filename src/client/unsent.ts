import type { Session } from './context'
import { linkOutOfHome, readLocal } from './files'
import { keptFor } from './local-keys'
import { EVERYWHERE_FILE, type KeptFile, masked } from './sync/local-keys'
import { pendingState } from './journal'
import { configScope } from './ownership'
import { fileHash } from './hash'
import { pinnedScope } from './pinned'
import type { Target } from './run'
import type { SyncState } from './state'
import { type BaseFile, ownValue } from './sync/engine'

/**
 * This machine's unsent changes to a config: the files here that differ from
 * the base (the version last synced here), read without the server, so
 * `discard`, `rollback`'s advice and an offline `status` can all say what a
 * pull would keep (docs/sync-model.md).
 */

export interface LocalChange {
	key: string
	/** The synced version (undefined: the file was never synced here). */
	base?: BaseFile
	/** The file here (undefined: deleted here), its local keys as synced. */
	local?: string
	/** The file's keys that stay on this machine, and the file as it is here, when it has any. */
	kept?: KeptFile
	here?: string
}

export async function localChanges(
	s: Session,
	t: Target,
	named?: string[]
): Promise<{ state?: SyncState; changes: LocalChange[] }> {
	// A command killed part-way counts as the next one will settle it (docs/sync-model.md, "Crashes").
	const state = pendingState(t.key)
	if (!state) return { changes: [] }
	// The same files the config's runs look at here (its own, not another config's of the tool).
	const scoped = pinnedScope(await configScope(s, t, { named, base: state.files }), state, undefined, named)
	// A file behind a link out of home is never read or sent: not a change of this machine's (docs/sync-model.md).
	const keys = scoped.keys.filter((key) => linkOutOfHome(key) === undefined)
	const local = readLocal(keys)
	// A key that stays on this machine is not an unsent change (docs/sync-model.md); offline, the config's
	// --everywhere list is the one last read from the server.
	const kept = keptFor(
		t.key,
		state.everywhere === undefined ? undefined : { [EVERYWHERE_FILE]: state.everywhere },
		local
	)
	const changes: LocalChange[] = []
	for (const key of [...keys].sort()) {
		const base = ownValue(state.files, key)
		const rules = ownValue(kept, key)
		const here =
			rules && base?.content !== undefined
				? masked(key, ownValue(local, key), base.content, rules)
				: ownValue(local, key)
		if (base === undefined && here === undefined) continue
		const same =
			base !== undefined &&
			here !== undefined &&
			(base.written === here || (base.content !== undefined ? base.content === here : base.hash === fileHash(here)))
		if (same) continue
		changes.push(
			rules ? { key, base, local: here, kept: rules, here: ownValue(local, key) } : { key, base, local: here }
		)
	}
	return { state, changes }
}
