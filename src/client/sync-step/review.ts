import { PromptCancelled } from '../../shared/terminal'
import type { Session } from '../context'
import { fileHash } from '../hash'
import { safe } from '../output'
import { page } from '../pager'
import { reviewText } from '../review-prompt'
import type { SyncState } from '../state'
import { emptyMap, ownValue, type Write } from '../sync/engine'
import { type FileReview, isSettingsFile, reviewWrite, wasAccepted } from '../sync/review'
import type { Target } from '../target'
import { devicesSince, isTrusted, ownDevice, trustedDevices, UNKNOWN_DEVICE } from '../trust'
import { shellWord } from '../words'
import type { Remote } from './remote'
import type { Held, RunOptions } from './types'

const unique = (keys: string[]) => [...new Set(keys)]

/**
 * Someone else's changes to a team config are reviewed by an allowlist
 * (docs/sync-model.md): a file whose changes touch only inert settings is
 * written; any other is shown as a diff and asked about, once for all. On
 * `no`, or without a terminal and without --yes, those files are left as
 * they were (the rest is written) and named. Content this machine pushed
 * itself, or accepted before, is not asked about again.
 */
export async function review(
	t: Target,
	state: SyncState | undefined,
	writes: Write[],
	options: RunOptions
): Promise<{ held?: Held; accepted: Write[] }> {
	const fromOthers = writes.filter(
		(w) =>
			(w.content === null || fileHash(w.content) !== ownValue(state?.pushedFiles, w.key)) &&
			!wasAccepted(state?.acceptedFiles, w.key, w.content, fileHash)
	)
	const asked = fromOthers
		.map((w) => ({ write: w, review: reviewWrite(t.tool, w.key, w.before, w.content) }))
		.filter((r) => !r.review.inert)
		.sort((a, b) => (a.write.key < b.write.key ? -1 : 1))
	if (asked.length === 0) return { accepted: [] }
	const heading = `${t.label} was changed by someone else beyond the settings known to be inert (theme, fonts, formatting, layout); ${asked.length === 1 ? 'this file needs' : 'these files need'} your review:`
	return askAbout(heading, asked, options)
}

/**
 * Shows what is asked about (whole) and asks once for all of it: written with
 * --yes or a yes; otherwise (no terminal, `watch`, any other answer) the
 * files are held, to be left as they are.
 */
async function askAbout(
	heading: string,
	asked: { write: Write; review: FileReview }[],
	options: RunOptions
): Promise<{ held?: Held; accepted: Write[] }> {
	await showReview(heading, asked, options)
	const written = asked.map((a) => a.write)
	if (options.yes) {
		options.out.warn('Writing them (--yes).')
		return { accepted: written }
	}
	const held = (code: Held['code']): { held: Held; accepted: Write[] } => ({
		held: { keys: written.map((w) => w.key), code, again: runAgain(options) },
		accepted: []
	})
	if (options.interactive === false || !options.io.stdin.isTTY) return held('review_required')
	let answer: string | undefined
	try {
		answer = await options.io.stdin.prompt(
			`Write ${asked.length === 1 ? 'this file' : `these ${asked.length} files`}? [y/N] `
		)
	} catch (error) {
		if (error instanceof PromptCancelled) answer = ''
		else throw error
	}
	return /^y(es)?$/i.test((answer ?? '').trim()) ? { accepted: written } : held('declined')
}

/**
 * A personal config's change to a setting that runs code or widens what a
 * tool may do (a settings file's `runsCode`, `widens` or MCP keys; not a
 * memory or command file), made by a device this machine does not trust, is
 * reviewed like a team's
 * (docs/sync-model.md "Another device is someone else for
 * code"). Who made it is read from the versions since this machine's base
 * (the caller's activity log names each version's device); a file held once
 * remembers those devices (`waiting`), so a trusted device's version on top
 * of it does not let it through unseen. This machine's own pushes, content
 * accepted before, and inert changes are never asked about.
 */
export async function reviewDevices(
	s: Session,
	t: Target,
	state: SyncState | undefined,
	remote: Remote,
	writes: Write[],
	options: RunOptions
): Promise<{ held?: Held; accepted: Write[]; waiting?: Record<string, string[]> }> {
	const earlier = state?.reviewFrom ?? {}
	const writing = new Set(writes.map((w) => w.key))
	// A file still waiting (not synced to the server's content here, and not written now) keeps its devices.
	const waiting = emptyMap<string[]>()
	for (const [key, devices] of Object.entries(earlier)) {
		const theirs = ownValue(remote.files, key)
		if (writing.has(key) || theirs === undefined || ownValue(state?.files, key)?.hash === fileHash(theirs)) continue
		waiting[key] = devices
	}
	const candidates = writes
		.filter(
			(w) =>
				(w.content === null || fileHash(w.content) !== ownValue(state?.pushedFiles, w.key)) &&
				!wasAccepted(state?.acceptedFiles, w.key, w.content, fileHash)
		)
		.map((w) => ({ write: w, review: reviewWrite(t.tool, w.key, w.before, w.content) }))
		// Settings only (docs/sync-model.md): memory, command, agent and rule files are not settings, so pass as own.
		.filter((r) => r.review.runsCode && isSettingsFile(r.write.key))
	const done = (result: { held?: Held; accepted: Write[] } = { accepted: [] }) => ({
		...result,
		waiting: Object.keys(waiting).length > 0 ? waiting : undefined
	})
	if (candidates.length === 0) return done()
	const own = await ownDevice(s)
	const trusted = trustedDevices(s.server, await s.username())
	const after = state !== undefined && state.version <= remote.version ? state.version : 0
	const untrusted = (await devicesSince(s, remote.id, after, remote.version)).filter(
		(author) => !isTrusted(author, trusted, own)
	)
	const fresh = unique(untrusted.map((author) => author.device))
	// A file held before waits for the devices it was held for (names: what the person was told).
	const stillUntrusted = (device: string) => !isTrusted({ device, keyId: null }, trusted, own)
	const asked = candidates
		.map((c) => ({
			...c,
			devices: unique([...fresh, ...(ownValue(earlier, c.write.key) ?? []).filter(stillUntrusted)])
		}))
		.filter((c) => c.devices.length > 0)
		.sort((a, b) => (a.write.key < b.write.key ? -1 : 1))
	if (asked.length === 0) return done()
	const devices = unique(asked.flatMap((a) => a.devices))
	const named = devices.filter((d) => d !== UNKNOWN_DEVICE)
	// A trusted name whose key is not the one trusted: a new login there, or another key that took the name.
	const renewed = (d: string) =>
		trusted.some((t) => t.device === d) ? ' (with another key than the one this machine trusted)' : ''
	const who = devices.map((d) => (d === UNKNOWN_DEVICE ? d : `device "${safe(d)}"${renewed(d)}`)).join(', ')
	const trust =
		named.length > 0
			? ` If ${named.length === 1 ? 'that device is' : 'those devices are'} yours to trust with code: ${named.map((d) => `cfgsync trust ${shellWord(d)}`).join('; ')}.`
			: ''
	const heading = `${t.label} was changed from ${who}, which this machine does not trust, in what runs code or widens what the tool may do; ${asked.length === 1 ? 'this file needs' : 'these files need'} your review.${trust}`
	const result = await askAbout(heading, asked, options)
	if (result.held) for (const a of asked) waiting[a.write.key] = a.devices
	return done(result)
}

/**
 * Puts a review before the person, whole (docs/sync-model.md): on a terminal that
 * will be asked, wrapped to its width and through the pager when longer than
 * the screen; otherwise printed whole on stderr with the file names.
 */
async function showReview(
	heading: string,
	asked: { write: Write; review: FileReview }[],
	options: RunOptions
): Promise<void> {
	const files = asked.map((a) => ({ key: a.write.key, deleted: a.write.content === null, review: a.review }))
	const { io, out } = options
	const asking = !options.yes && options.interactive !== false && io.stdin.isTTY
	if (asking && io.stdout.isTTY) {
		await page(io, `${reviewText(heading, files, { width: io.stdout.columns || 80 }).join('\n')}\n`)
		return
	}
	const width = io.stderr.isTTY ? io.stderr.columns || 80 : undefined
	out.notice(reviewText(heading, files, { width }).join('\n'))
}

/**
 * The command that was run, with --yes: the same side, flags and PATHs, so
 * that it does what was asked and writes what was shown (report.ts prints it).
 */
function runAgain(options: RunOptions): Held['again'] {
	const words: string[] = []
	if (options.mode === 'resolve') words.push(options.choose?.side === 'mine' ? '--mine' : '--theirs')
	else if (options.choose) words.push('--force')
	if (options.only) words.push('--only')
	if (options.allowSecrets) words.push('--allow-secrets')
	words.push('--yes')
	return { options: words, paths: options.named ?? [] }
}
