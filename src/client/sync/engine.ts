import { inFormatOf, isJsonKey, mergeJsonText, parseJsonc, pathText, sameContent } from './json'
import { EVERYWHERE_FILE, type Kept, type KeptFile, keptHere, masked } from './local-keys'
import { syntaxError, whereText } from './syntax'
import { clashedLines, hasClash, mergeLines, pick, splitLines, twoWay, withMarkers, type Region } from './text-merge'

/**
 * The sync engine (docs/sync-model.md) as pure functions: from what this machine
 * last synced (the base), what is here (local) and what the server has
 * (remote), judge every file, then decide what to write here and what to
 * send. No fs, no fetch: the commands do the I/O and follow these decisions.
 * (chezmoi keeps its source, target and destination states apart the same
 * way; VS Code merges settings against the last synced base.)
 */

export type Files = Record<string, string>

/** A file as last synced here: its content, or only its hash (state written by an older client). */
export interface BaseFile {
	content?: string
	hash: string
	/**
	 * The file as written here, when it differs from `content` in formatting only (this machine's indentation,
	 * line endings, BOM: docs/sync-model.md, "Each machine keeps its formatting"): here, it counts as unchanged.
	 */
	written?: string
}

export type Bases = Record<string, BaseFile>

export type ConflictWhy = 'both-changed' | 'no-base' | 'deleted-here' | 'deleted-there'

export type Verdict =
	/** Here and on the server alike. */
	| { kind: 'same' }
	/** Changed here only: a push sends it (null: deleted here, so the push removes it). */
	| { kind: 'local'; content: string | null }
	/** Changed on the server only: a pull writes it (null: removed there, so the pull deletes it here). */
	| { kind: 'remote'; content: string | null }
	/** Changed on both sides, merged key by key without a clash. */
	| { kind: 'merged'; content: string }
	/**
	 * Changed on both sides and not mergeable. `keys` names what clashes: JSON
	 * keys, or lines of a text file (`lines 3–5`, as numbered here). `mine` and
	 * `theirs` are the file as it is once the person chooses a side: only the
	 * clashing keys or lines take that side, every other change of both sides
	 * stays. `regions`, when the file can be edited by hand (`resolve --edit`),
	 * are its agreed lines and its clashes.
	 */
	| {
			kind: 'conflict'
			why: ConflictWhy
			keys: string[]
			mine: string | null
			theirs: string | null
			regions?: Region[]
	  }

export interface Decision {
	key: string
	base?: BaseFile
	local?: string
	remote?: string
	verdict: Verdict
	/**
	 * The file's local keys (docs/sync-model.md, "Settings that stay on one
	 * machine"): then `local` and `base` are masked (each local key as the
	 * server has it) and `here` is the file as it is on this machine.
	 */
	kept?: KeptFile
	here?: string
}

export type Hasher = (content: string) => string

/**
 * File keys come from the server and may be any name, `__proto__` and
 * `constructor` included: maps of them have no prototype, and lookups read
 * own properties only.
 */
export const emptyMap = <T>(): Record<string, T> => Object.create(null) as Record<string, T>
export const ownValue = <T>(map: Record<string, T> | undefined, key: string): T | undefined =>
	map !== undefined && Object.hasOwn(map, key) ? map[key] : undefined
export const copyMap = <T>(map: Record<string, T> | undefined): Record<string, T> => Object.assign(emptyMap<T>(), map)

/** Is `content` what the base holds? (Both absent counts as the same.) */
function atBase(base: BaseFile | undefined, content: string | undefined, hash: Hasher): boolean {
	if (base === undefined || content === undefined) return base === undefined && content === undefined
	if (base.written !== undefined && base.written === content) return true
	return base.content !== undefined ? base.content === content : base.hash === hash(content)
}

/** One file's verdict from its base, local and remote content (undefined: absent there). */
export function judge(
	key: string,
	base: BaseFile | undefined,
	local: string | undefined,
	remote: string | undefined,
	hash: Hasher
): Verdict {
	const verdict = judgeFile(key, base, local, remote, hash)
	// A member of a bigger file (`.claude.json#mcpServers`) is written back into it as JSON: no markers there.
	if (verdict.kind === 'conflict' && key.includes('#')) delete verdict.regions
	return verdict
}

function judgeFile(
	key: string,
	base: BaseFile | undefined,
	local: string | undefined,
	remote: string | undefined,
	hash: Hasher
): Verdict {
	if (local === remote) return { kind: 'same' }
	const localChanged = !atBase(base, local, hash)
	const remoteChanged = !atBase(base, remote, hash)
	// The server's version written here in this machine's formatting: nothing changed on either side.
	if (!localChanged && !remoteChanged) return { kind: 'same' }
	if (!remoteChanged) return { kind: 'local', content: local ?? null }
	if (!localChanged) return { kind: 'remote', content: remote ?? null }
	// No base: a new machine, or a file both sides created. It merges against an empty base, so that
	// only what differs on both sides clashes; what it merges is written here, not sent (see reconcile).
	const why: ConflictWhy = base === undefined ? 'no-base' : 'both-changed'
	const whole = (why: ConflictWhy, keys: string[] = []): Verdict => ({
		kind: 'conflict',
		why,
		keys,
		mine: local ?? null,
		theirs: remote ?? null
	})
	if (local === undefined) return whole('deleted-here')
	if (remote === undefined) return whole('deleted-there')
	// A base written by an older client holds only hashes: there is nothing to merge against.
	if (base !== undefined && base.content === undefined)
		return whole(why, ['the whole file (no copy of the last synced version to merge against)'])
	const baseText = base?.content
	if (isJsonKey(key)) {
		const merged = mergeJsonText(baseText, local, remote)
		// A new machine whose file adds nothing to the server's takes the server's version, in its own formatting.
		if (merged.ok)
			return { kind: 'merged', content: base === undefined && sameContent(merged.text, remote) ? remote : merged.text }
		if (merged.reason === 'keys') {
			const mine = mergeJsonText(baseText, local, remote, 'local')
			const theirs = mergeJsonText(baseText, local, remote, 'remote')
			const mineText = mine.ok ? mine.text : local
			// Once nothing of this machine's is left, the file is the server's, byte for byte.
			const theirsText = theirs.ok && !sameContent(theirs.text, remote) ? theirs.text : remote
			return {
				kind: 'conflict',
				why,
				keys: merged.conflicts.map(pathText),
				mine: mineText,
				theirs: theirsText,
				regions: twoWay(splitLines(mineText), splitLines(theirsText))
			}
		}
		// A side that does not parse as JSON (or an edit that cannot be made exactly) is merged as lines,
		// as long as the result parses whenever this machine's copy did.
		const lines = textVerdict(baseText ?? '', local, remote, why)
		if (lines.kind !== 'merged' || !parseJsonc(local) || parseJsonc(lines.content)) return lines
		return {
			kind: 'conflict',
			why,
			keys: ['the whole file (it does not merge as JSON)'],
			mine: local,
			theirs: remote,
			regions: twoWay(splitLines(local), splitLines(remote))
		}
	}
	// A file with a syntax (Codex's config.toml) merged as lines may not parse even where every side did:
	// both sides adding the same key in different places gives it twice. That is a conflict, never a write.
	const lines = textVerdict(baseText ?? '', local, remote, why)
	if (lines.kind !== 'merged' || syntaxError(key, local) !== undefined) return lines
	const broken = syntaxError(key, lines.content)
	if (broken === undefined) return lines
	return {
		kind: 'conflict',
		why,
		keys: [`the whole file (merged line by line it would not parse as ${broken.format}: ${whereText(broken)})`],
		mine: local,
		theirs: remote,
		regions: twoWay(splitLines(local), splitLines(remote))
	}
}

/** A text file changed on both sides, merged line by line (docs/sync-model.md). */
function textVerdict(base: string, local: string, remote: string, why: ConflictWhy): Verdict {
	const regions = mergeLines(base, local, remote)
	if (regions === undefined)
		return {
			kind: 'conflict',
			why,
			keys: ['the whole file (too large to merge line by line)'],
			mine: local,
			theirs: remote
		}
	if (!hasClash(regions)) return { kind: 'merged', content: pick(regions, 'mine') }
	return {
		kind: 'conflict',
		why,
		keys: clashedLines(regions),
		mine: pick(regions, 'mine'),
		theirs: pick(regions, 'theirs'),
		regions
	}
}

export interface Sides {
	/** Undefined: this machine never synced the config (a new machine). */
	base?: Bases
	/** The files here, among `scope`. */
	local: Files
	/** The server's files (keys in neutral form); undefined when the config does not exist. */
	remote?: Files
	/** The keys this command looks at here: the tool's files, files synced before, or the PATHs given. */
	scope: string[]
	/** The server's version, named in conflict markers (`resolve --edit`). */
	remoteVersion?: number
	/** Keys and files local to this machine (docs/sync-model.md): masked on the way out, kept on the way in. */
	kept?: Kept
}

/** Every file in scope judged; server files outside the scope are listed apart (a pull does not write them). */
export function decide(sides: Sides, hash: Hasher): { decisions: Decision[]; outside: string[] } {
	const inScope = new Set(sides.scope)
	const keys = [...inScope].sort()
	const decisions = keys
		.map((key): Decision => {
			let base = ownValue(sides.base, key)
			let local = ownValue(sides.local, key)
			const remote = ownValue(sides.remote, key)
			const kept = ownValue(sides.kept, key)
			if (kept === undefined) return { key, base, local, remote, verdict: judge(key, base, local, remote, hash) }
			// A local key is judged as if it held the server's value on every side: it never changes, never clashes.
			const here = local
			local = masked(key, here, remote, kept)
			if (base?.content !== undefined) {
				const content = masked(key, base.content, remote, kept)
				base = content === undefined ? undefined : baseOf(content, hash)
			} else if (kept.whole) base = remote === undefined ? undefined : baseOf(remote, hash)
			return { key, base, local, remote, verdict: judge(key, base, local, remote, hash), kept, here }
		})
		// A file that is nowhere (not here, not there, not in the base) is no decision.
		.filter((d) => !(d.verdict.kind === 'same' && d.local === undefined && d.base === undefined))
	// The config's own list of keys local everywhere is read, never written here: not a file left alone.
	const outside = Object.keys(sides.remote ?? {})
		.filter((key) => !inScope.has(key) && key !== EVERYWHERE_FILE)
		.sort()
	return { decisions, outside }
}

export type Mode = 'pull' | 'push' | 'sync' | 'resolve'
export type Side = 'mine' | 'theirs'
/** A side, or `edit`: conflict markers written into the file for the person to settle by hand (`resolve --edit`). */
export type Choice = Side | 'edit'

export interface Options {
	mode: Mode
	/**
	 * A side chosen by the person: `resolve --mine|--theirs`, `push --force`
	 * (mine) or `pull --force` (theirs). Without `keys` it settles every
	 * conflict; with `keys` (resolve PATH...) it applies to those files whatever
	 * their verdict.
	 */
	choose?: { side: Choice; keys?: string[] }
	/** push --only: only the PATHs are sent (the config's other files stay); later plain runs keep to them. */
	only?: boolean
}

export type WriteKind = 'created' | 'updated' | 'deleted' | 'merged' | 'mine' | 'theirs' | 'marked'

/** A file to write here (null: delete it). Every write is backed up first by the command. */
export interface Write {
	key: string
	content: string | null
	kind: WriteKind
	/** The content here before the write (what the backup keeps). */
	before?: string
}

export interface Outcome {
	writes: Write[]
	/** The server's new file set, when this command must push one. */
	push?: Files
	/** Conflicts nobody chose a side for: a pull reports them, a push is refused. */
	conflicts: Decision[]
	/** Changed here, not sent (a pull). */
	unsent: Decision[]
	/** Changed on the server, not written here (a push). */
	unpulled: Decision[]
	/** The base once the writes are made and the push (if any) accepted. */
	base: Bases
	/** True when this outcome does nothing (no write, no push). */
	idle: boolean
}

const baseOf = (content: string, hash: Hasher): BaseFile => ({ content, hash: hash(content) })

/**
 * What a command does with the decisions. The invariants (checked by the
 * property test): nothing here is overwritten unless it is what the base
 * holds or the person chose `theirs`; nothing on the server is replaced
 * unless it is what the base holds or the person chose `mine`; a push with
 * an unsettled conflict sends nothing and writes nothing.
 */
export function reconcile(sides: Sides, decisions: Decision[], options: Options, hash: Hasher): Outcome {
	const base: Bases = copyMap(sides.base)
	const writes: Write[] = []
	const changes = new Map<string, string | null>()
	const conflicts: Decision[] = []
	const unsent: Decision[] = []
	const unpulled: Decision[] = []
	const { mode } = options
	const pulls = mode === 'pull' || mode === 'sync'
	const pushes = mode === 'push' || mode === 'sync'
	const chosen = (key: string): Choice | undefined => {
		const choice = options.choose
		if (!choice) return undefined
		return choice.keys === undefined || choice.keys.includes(key) ? choice.side : undefined
	}
	const setBase = (key: string, content: string | null | undefined, written?: string | null) => {
		if (content === null || content === undefined) delete base[key]
		else
			base[key] =
				written === undefined || written === null || written === content
					? baseOf(content, hash)
					: { ...baseOf(content, hash), written }
	}
	/** The server's version of a JSON file as written here: in this machine's formatting (docs/sync-model.md). */
	const inOurFormat = (d: Decision, content: string | null): string | null =>
		content !== null && d.local !== undefined && d.kept === undefined && isJsonKey(d.key)
			? inFormatOf(d.local, content)
			: content
	const write = (d: Decision, text: string | null, kind: WriteKind, keep = true) => {
		// This machine's local keys go back into whatever is written here.
		const content = d.kept && keep ? keptHere(d.key, text, d.here, d.kept) : text
		const before = d.kept ? d.here : d.local
		if (content === (before ?? null)) return
		const named: WriteKind =
			kind === 'updated' ? (content === null ? 'deleted' : before === undefined ? 'created' : 'updated') : kind
		writes.push({ key: d.key, content, kind: named, before })
	}

	for (const d of decisions) {
		const v = d.verdict
		const side = chosen(d.key)
		// `resolve PATH --mine|--theirs` on a file named but not in conflict: keep it, or take the server's.
		if (
			mode === 'resolve' &&
			v.kind !== 'conflict' &&
			v.kind !== 'same' &&
			(side === 'mine' || side === 'theirs') &&
			options.choose?.keys !== undefined &&
			!(v.kind === 'merged' && d.base === undefined)
		) {
			if (side === 'theirs') write(d, d.remote ?? null, 'theirs')
			setBase(d.key, d.remote)
			continue
		}
		switch (v.kind) {
			case 'same':
				setBase(d.key, d.remote, d.kept === undefined ? d.local : undefined)
				break
			case 'remote':
				if (pulls) {
					const here = inOurFormat(d, v.content)
					write(d, here, 'updated')
					setBase(d.key, v.content, here)
				} else if (mode === 'push' || mode === 'resolve') unpulled.push(d)
				break
			case 'local':
				if (pushes) {
					changes.set(d.key, v.content)
					setBase(d.key, v.content)
				} else unsent.push(d)
				break
			case 'merged':
				// Never synced here: the merge is written and the base becomes the server's version, so
				// what only this machine had is an unsent change, sent by the next push or sync — never by
				// the command that first met the server's copy (docs/sync-model.md). Resolve with a side
				// settles it the same way.
				if (d.base === undefined) {
					if (mode === 'resolve' && side === undefined) break
					// Nothing of this machine's beyond the server's: its version, in this machine's formatting.
					const here = v.content === d.remote ? inOurFormat(d, v.content) : v.content
					write(d, here, 'merged')
					// push --force is the person saying to send this machine's side now.
					if (pushes && side === 'mine') {
						changes.set(d.key, v.content)
						setBase(d.key, v.content)
						break
					}
					setBase(d.key, d.remote, v.content === d.remote ? here : undefined)
					if (v.content !== d.remote) unsent.push(d)
					break
				}
				if (mode === 'resolve') break
				write(d, v.content, 'merged')
				if (pushes) {
					changes.set(d.key, v.content)
					setBase(d.key, v.content)
				} else setBase(d.key, d.remote)
				break
			case 'conflict': {
				if (side === undefined) {
					conflicts.push(d)
					break
				}
				if (side === 'edit') {
					// Markers for the person to edit; the base moves to the server's version, so the file, once
					// edited, is a change of this machine's to push (a push refuses while markers remain).
					if (v.regions === undefined) conflicts.push(d)
					else {
						// With local keys, the markers are drawn between the two sides as they would be written here.
						const regions =
							(d.kept &&
								twoWay(
									splitLines(keptHere(d.key, v.mine, d.here, d.kept) ?? ''),
									splitLines(keptHere(d.key, v.theirs, d.here, d.kept) ?? '')
								)) ||
							v.regions
						write(d, withMarkers(regions, sides.remoteVersion), 'marked', false)
						setBase(d.key, d.remote)
					}
					break
				}
				const content = side === 'mine' ? v.mine : v.theirs
				write(d, content, side)
				if (pushes && content !== (d.remote ?? null)) {
					changes.set(d.key, content)
					setBase(d.key, content)
				} else setBase(d.key, d.remote)
				break
			}
		}
	}

	// A push (or the push half of a sync) with an unsettled conflict sends nothing;
	// a sync then still does what a pull would.
	if (conflicts.length > 0 && mode === 'push') {
		return { writes: [], conflicts, unsent: [], unpulled: [], base: copyMap(sides.base), idle: true }
	}
	if (conflicts.length > 0 && mode === 'sync') return reconcile(sides, decisions, { ...options, mode: 'pull' }, hash)

	let push: Files | undefined
	if (pushes) {
		// Every file of the server's the command did not look at stays as it is (push --only included: it sends
		// only its PATHs and never removes another file, docs/sync-model.md).
		const remote = sides.remote ?? {}
		const next: Files = copyMap(remote)
		for (const [key, content] of changes) {
			if (content === null) delete next[key]
			else next[key] = content
		}
		const unchanged = sides.remote !== undefined && sameFiles(next, remote)
		if (!unchanged) push = next
	}
	return { writes, push, conflicts, unsent, unpulled, base, idle: writes.length === 0 && push === undefined }
}

export function sameFiles(a: Files, b: Files): boolean {
	const keys = Object.keys(a)
	return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && b[key] === a[key])
}

/** One word per config for `status`. */
export type Standing = 'in sync' | 'local changes' | 'remote changes' | 'local and remote changes' | 'conflict'

export function standing(decisions: Decision[]): Standing {
	const kinds = new Set(decisions.map((d) => d.verdict.kind))
	if (kinds.has('conflict')) return 'conflict'
	const local = kinds.has('local')
	const remote = kinds.has('remote')
	if (kinds.has('merged') || (local && remote)) return 'local and remote changes'
	if (local) return 'local changes'
	if (remote) return 'remote changes'
	return 'in sync'
}
