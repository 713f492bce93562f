import type { Session } from '../context'
import { fileHash } from '../hash'
import { CliFailure, EXIT, safe } from '../output'
import { checkSize } from '../outgoing'
import type { SyncState } from '../state'
import { type Files, type Outcome, ownValue } from '../sync/engine'
import { type Accepted, leaveAsTheyAre, remember } from '../sync/review'
import { newSecrets } from '../sync/secrets'
import type { Target } from '../target'
import { knownDirs, knownFiles, shown } from '../tools'
import { pathWord } from '../words'
import { type Gathered, skippedOf } from './gather'
import type { Judged } from './judge'
import type { Remote } from './remote'
import { review, reviewDevices } from './review'
import type { Held, RunOptions } from './types'

/** The third phase's answer: what may be written and sent once the person and the checks had their say. */
export interface Vetted {
	/** The judged outcome, less the files a review left as they were. */
	outcome: Outcome
	held?: Held
	/** Content accepted after a review, remembered so that it is not asked about again. */
	accepted?: Accepted
	/** Files still waiting for a review of an untrusted device's change, with those devices. */
	reviewFrom?: Record<string, string[]>
	/** The secret-looking values a personal config has noted once. */
	secretsNoted: string[]
}

const unique = (keys: string[]) => [...new Set(keys)]

/** PATH arguments again, for a command to rerun: a team push without them would not send the new files. */
const pathWords = (named: string[] | undefined) => (named ?? []).map((key) => ` ${pathWord(key)}`).join('')

/** A dry run says what the push would meet: the team's secret refusal and the size limit, nothing sent either way. */
export function preview(t: Target, options: RunOptions, g: Gathered, j: Judged): void {
	const push = j.outcome.push
	if (push === undefined) return
	if (t.teamId && !options.allowSecrets) checkSecrets(t, g.state, g.remote, push, options)
	checkSize(t.label, t.tool, t.args, push)
}

/**
 * Vets what the judged outcome would do before anything changes: a push of
 * nothing that creates a config is refused; someone else's changes are
 * reviewed (a team's beyond the inert settings, a personal config's code from
 * an untrusted device); then the secret and size checks of what is sent.
 */
export async function vet(s: Session, t: Target, options: RunOptions, g: Gathered, j: Judged): Promise<Vetted> {
	refuseEmptyCreate(t, options, g, j)
	const { state, remote } = g
	let outcome = j.outcome
	let held: Held | undefined
	let accepted = state?.acceptedFiles
	let reviewFrom = state?.reviewFrom
	if (remote) {
		// A team config: someone else's changes; a personal one: code from a device this machine does not trust.
		const reviewed = t.teamId
			? { ...(await review(t, state, outcome.writes, options)), waiting: state?.reviewFrom }
			: await reviewDevices(s, t, state, remote, outcome.writes, options)
		if (reviewed.held) {
			held = reviewed.held
			outcome = leaveAsTheyAre(outcome, new Set(held.keys), g.base, remote.files)
		}
		const kept = outcome.base
		accepted = remember(accepted, reviewed.accepted, (key) => ownValue(kept, key) !== undefined, fileHash)
		reviewFrom = reviewed.waiting
	}
	const secretsNoted = checkSecrets(t, state, remote, outcome.push, options)
	checkSize(t.label, t.tool, t.args, outcome.push)
	return { outcome, held, accepted, reviewFrom, secretsNoted }
}

/** A push that would create a config with no file in it names where it looked, and why files were left out. */
function refuseEmptyCreate(t: Target, options: RunOptions, g: Gathered, j: Judged): void {
	const push = j.outcome.push
	if (push === undefined || Object.keys(push).length > 0 || g.remote) return
	const looked = options.named ?? [...knownFiles(t.tool), ...knownDirs(t.tool).map((dir) => `${dir}/`)]
	const owned = skippedOf(t, g).filter((skip) => g.scoped.elsewhere.includes(skip.key))
	const why = owned.length > 0 ? `; ${owned.map((skip) => `${safe(shown(skip.key))} is ${skip.why}`).join('; ')}` : ''
	// Files a left team config synced here are there, only not taken in unnamed: name the push that takes them.
	const left = owned.filter((skip) => skip.why.startsWith('left here')).map((skip) => skip.key)
	// A tool's folder over the caps was left out whole: that, not "no files", is why nothing is sent.
	const over = skippedOf(t, g).filter((skip) => g.scoped.excluded.includes(skip.key))
	throw new CliFailure(
		left.length > 0
			? `nothing to send in ${t.label} without naming files${why}. To make ${left.length === 1 ? 'it' : 'them'} part of this config: cfgsync push ${t.tool}${t.args}${safe(pathWords(left))}`
			: over.length > 0
				? `nothing to send in ${t.label}: ${over.map((skip) => `${safe(shown(skip.key))} holds ${skip.why}`).join('; ')}${why}. Push the files you need by name (cfgsync push ${t.tool} PATH...), or move some out of it.`
				: `no ${t.tool} configuration files found (looked for ${looked.map(shown).join(', ')})${why}`
	)
}

/**
 * A push that would put a new secret-looking value into a
 * team config is refused unless --allow-secrets; a personal config notes it
 * once. Returns the notes to remember.
 */
function checkSecrets(
	t: Target,
	state: SyncState | undefined,
	remote: Remote | undefined,
	push: Files | undefined,
	options: RunOptions
): string[] {
	const noted = state?.secretsNoted ?? []
	if (push === undefined) return noted
	const found: { key: string; path: string }[] = []
	for (const [key, content] of Object.entries(push)) {
		const before = ownValue(remote?.files, key)
		if (content === before) continue
		for (const secret of newSecrets(key, content, before)) found.push({ key, path: secret.path })
	}
	if (found.length === 0) return noted
	const where = found.map((f) => `${safe(shown(f.key))}: ${safe(f.path)}`).join('; ')
	if (t.teamId) {
		if (!options.allowSecrets) {
			throw new CliFailure(
				`${options.dryRun ? 'A push would be refused' : 'Refusing to push'} to ${t.label}: ${found.length === 1 ? 'this value looks' : 'these values look'} like a secret everyone in the team would receive — ${where}. Nothing was sent. Replace ${found.length === 1 ? 'it' : 'them'} with a reference such as "\${GITHUB_TOKEN}", or if the team is meant to have ${found.length === 1 ? 'it' : 'them'}, run: cfgsync ${options.mode} ${t.tool}${t.args} --allow-secrets${pathWords(options.named)}`,
				EXIT.error,
				'secrets'
			)
		}
		options.out.warn(`Pushing secret-looking values to ${t.label} (--allow-secrets): ${where}.`)
		return noted
	}
	const fresh = found.filter((f) => !noted.includes(`${f.key}#${f.path}`))
	if (fresh.length > 0) {
		options.out.warn(
			`Note: ${fresh.map((f) => `${safe(shown(f.key))}: ${safe(f.path)}`).join('; ')} look${fresh.length === 1 ? 's' : ''} like a secret. It is stored encrypted in your personal config on your server; cfgsync will not mention it again.`
		)
	}
	return unique([...noted, ...fresh.map((f) => `${f.key}#${f.path}`)])
}
