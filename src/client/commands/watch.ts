import { ApiError } from '../api'
import { loginCommand, noMore, type Session, session } from '../context'
import { localEntries } from '../local-keys'
import { keptFrom, type LocalEntry, masked } from '../sync/local-keys'
import { readLocal } from '../files'
import { fileHash, sha256 } from '../hash'
import { acquireLock } from '../lock'
import type { ListenEnd } from '../live'
import { CliFailure, dim, EXIT, failure, isJsonMode, notice, say, warn } from '../output'
import { pinnedScope } from '../pinned'
import { outcomeFailure, printLines, reportJson, summary } from '../report'
import { fetchRemote, runOne, type Target } from '../run'
import { configScope, memberTeams } from '../ownership'
import { getState } from '../state'
import { ownValue } from '../sync/engine'
import { defineCommand, type Input, NAME, TEAM, TOOL, YES } from './command'
import { targetsFor } from './common'

export const WATCH_HELP = `cfgsync watch [TOOL] [-n|--name N] [--team SLUG] [--poll] [--interval 30s] [-y|--yes] [--allow-secrets]

Keeps every config this machine syncs (or TOOL's) in sync, in the
foreground: local edits are pushed once they settle (unchanged for a
second), and a new version on the server is pulled within a second: watch
listens to the server's live changes (GET /api/events) and sends no other
request while nothing changes. When that stream drops it says so once,
reconnects (1s, doubling to 30s) and says when it is back. Against a server
without live changes, or with --poll, it polls every --interval instead
(default 30s; 1s at least; If-None-Match, so an unchanged config costs one
small request). It starts with one sync of each config. It never settles a
conflict itself: it reports it once and leaves that config's conflicting
files alone until you run cfgsync resolve; a team file that someone else
changed beyond the inert settings (theme, fonts, formatting, layout) is left
as it is unless --yes. Ctrl-C stops it cleanly (exit 0); a key revoked
meanwhile stops it with exit 4. With --json it prints one JSON object per
line: each cycle that changed something (the shape of sync --json's
entries, with "at"), or a config's error ("config", "error", "code", "at").`

/** `30s`, `2m`, `1h`, `1500ms`, or seconds. */
export function parseInterval(text: string): number {
	const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim())
	if (!match) throw new CliFailure(`--interval takes a duration such as 30s, 2m or 1h, not "${text}"`, EXIT.usage)
	const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? 's') as 'ms' | 's' | 'm' | 'h']
	const ms = Number(match[1]) * unit
	if (ms < 1000) throw new CliFailure('--interval is 1s at least', EXIT.usage)
	return ms
}

interface Watched {
	t: Target
	/** The server's hash after the last cycle (sent as If-None-Match). */
	etag?: string
	/** The local files' fingerprint at the last check: an edit has settled when it is the same one check later. */
	seen?: string
	/** Files a cycle had to leave (a conflict, a refusal), by the hash of their content then: not retried until they change. */
	stuck: Map<string, string>
	/** When the state was written as the stuck files were noted: a command run meanwhile (resolve) frees them. */
	stuckAt?: string
	/** The config's keys and files that stay on this machine, as the last cycle read them (with the server's list). */
	local?: LocalEntry[]
	nextPoll: number
	/**
	 * The hash the last live event of this config names (`deleted` once deleted): judged by the loop, after
	 * any cycle under way, so this machine's own push (whose event may come before the push is noted) is
	 * not pulled back.
	 */
	heard?: string
	/** Look at the server (If-None-Match) now: after a reset, or after the live stream was down. */
	check?: boolean
	/** No longer on the server: not watched any more. */
	gone?: boolean
}

/** The local files' fingerprint, and whether any differs from the base (changed here since the last sync). */
async function localSide(s: Session, w: Watched): Promise<{ fingerprint: string; dirty: boolean }> {
	const state = getState(w.t.key)
	// Files left stuck are freed when the state changed since (a resolve run meanwhile).
	const stuck = state?.syncedAt === w.stuckAt ? w.stuck : new Map<string, string>()
	// The same files a sync of it looks at: a file another config of the tool owns here is not this one's edit.
	const { keys: scope } = pinnedScope(await configScope(s, w.t, { base: state?.files }), state, undefined)
	const local = readLocal(scope)
	// An edit to a key that stays on this machine is no change to send (docs/sync-model.md).
	const kept = keptFrom([...(w.local ?? []), ...localEntries(w.t.key, undefined, local).map((o) => o.entry)])
	const dirty = scope.some((key) => {
		const rules = ownValue(kept, key)
		const synced = ownValue(state?.files, key)?.content
		const here = ownValue(local, key)
		const content = rules && synced !== undefined ? masked(key, here, synced, rules) : here
		const hash = content === undefined ? undefined : fileHash(content)
		if (hash === ownValue(state?.files, key)?.hash) return false
		return stuck.get(key) !== (hash ?? 'absent')
	})
	return { fingerprint: sha256(JSON.stringify(Object.entries(local).sort())), dirty }
}

const stamp = () => new Date().toTimeString().slice(0, 8)

const options = {
	...NAME,
	...TEAM,
	interval: { type: 'string' },
	poll: { type: 'boolean' },
	...YES,
	'allow-secrets': { type: 'boolean' }
} as const

async function run({ values, positionals }: Input<typeof options>) {
	noMore(positionals, 1, 'watch')
	const interval = parseInterval(values.interval ?? '30s')
	const s = session(values)
	const line = (value: unknown) => void process.stdout.write(`${JSON.stringify(value)}\n`)
	const targets = await targetsFor(s, 'watch', positionals, values)
	if (targets.length === 0)
		throw new CliFailure(
			'This machine syncs no config yet, so there is nothing to watch: cfgsync sync --all-remote starts syncing the configs the server holds (cfgsync status lists them), or cfgsync push TOOL sends one from here.'
		)
	const tick = Math.min(1000, interval)
	// As sync: a team's plain member pulls its configs and keeps changes here local.
	const members = await memberTeams(s, targets)

	let stopping = false
	const live = new AbortController()
	let wake: (() => void) | undefined
	let lock: { release: () => void } | undefined
	const onSignal = () => {
		if (stopping) {
			// A second Ctrl-C: stop now.
			lock?.release()
			process.exit(130)
		}
		stopping = true
		live.abort()
		wake?.()
	}
	process.on('SIGINT', onSignal)
	process.on('SIGTERM', onSignal)
	const sleep = (ms: number) =>
		new Promise<void>((resolve) => {
			const timer = setTimeout(resolve, ms)
			wake = () => {
				clearTimeout(timer)
				resolve()
			}
		})

	const watched: Watched[] = targets.map((t) => ({ t, nextPoll: 0, stuck: new Map() }))

	// While the server cannot be reached, one line says so, and one more when it answers again (not one per try).
	let down: string | undefined
	const unreachable = (w: Watched | undefined, error: CliFailure) => {
		if (down !== undefined) return
		down = error.message
		if (isJsonMode())
			line({
				at: new Date().toISOString(),
				config: w ? { tool: w.t.tool, name: w.t.name, team: w.t.team ?? w.t.teamId ?? null } : null,
				error: error.message,
				code: error.code
			})
		else warn(`[${stamp()}] ${error.message}. Watch keeps trying, and says when the server answers again.`)
	}
	const reachable = (): boolean => {
		if (down === undefined) return false
		down = undefined
		notice(`[${stamp()}] ${s.server} answers again; watching.`)
		return true
	}
	const isUnreachable = (error: unknown): boolean => error instanceof CliFailure && error.code === 'unreachable'

	const cycle = async (w: Watched): Promise<void> => {
		lock = await acquireLock('watch', { signals: false })
		try {
			const report = await runOne(s, w.t, {
				mode: 'sync',
				// On a terminal, watch asks there about someone else's changes (docs/sync-model.md).
				interactive: !isJsonMode() && process.stdin.isTTY === true,
				yes: values.yes,
				allowSecrets: values['allow-secrets'],
				localOnly: w.t.teamId !== undefined ? members.get(w.t.teamId) : undefined
			})
			reachable()
			w.etag = report.pushed?.hash ?? report.remoteHash
			w.local = report.local.map((o) => o.entry)
			const kept = report.localOnly !== undefined && report.unsent.length > 0
			const changed = report.writes.length + report.conflicts.length + report.refused.length > 0 || report.pushed
			if (isJsonMode()) {
				if (changed || kept) line({ at: new Date().toISOString(), ...reportJson(report) })
			} else if (changed || kept) {
				say(
					`[${stamp()}] ${w.t.label}: ${summary(report)}${report.pushed ? `; pushed version ${report.pushed.version}` : ''}`
				)
				printLines(report)
			}
			const problem = outcomeFailure(report)
			if (problem) warn(`[${stamp()}] ${problem.message}`)
			// Conflicts, and changes kept here (a member's, held back by a conflict, or not sent because they do not
			// parse), wait for an edit: not tried again (and reported again) every second.
			w.stuck = new Map(
				[...report.conflicts, ...report.unsent].map((d) => {
					// A member's file merged with the team's change holds the merge now, not what it held before.
					const here = d.verdict.kind === 'merged' ? d.verdict.content : d.local
					return [d.key, here === undefined ? 'absent' : fileHash(here)]
				})
			)
			w.stuckAt = getState(w.t.key)?.syncedAt
			for (const { key } of report.refused) {
				const content = ownValue(readLocal([key]), key)
				w.stuck.set(key, content === undefined ? 'absent' : fileHash(content))
			}
		} catch (error) {
			if (error instanceof CliFailure && error.exitCode === EXIT.auth) throw error
			if (!(error instanceof CliFailure)) throw error
			if (isUnreachable(error)) return unreachable(w, error)
			if (isJsonMode())
				line({
					at: new Date().toISOString(),
					config: { tool: w.t.tool, name: w.t.name, team: w.t.team ?? w.t.teamId ?? null },
					error: error.message,
					code: error.code
				})
			else warn(`[${stamp()}] ${w.t.label}: ${error.message}`)
			if (error.code === 'gone') {
				w.gone = true
				return
			}
			// Not again until something changes: remember what the server has now.
			const remote = await fetchRemote(s, w.t).catch(() => undefined)
			if (remote && remote !== 'unchanged') w.etag = remote.hash
			const state = getState(w.t.key)
			const local = readLocal((await configScope(s, w.t, { base: state?.files })).keys)
			w.stuck = new Map(Object.entries(local).map(([key, content]) => [key, fileHash(content)]))
			w.stuckAt = state?.syncedAt
		} finally {
			lock.release()
			lock = undefined
		}
	}

	// The live stream (docs/client.md "cfgsync watch"): an event of a config watched here, with a hash
	// this machine has not synced (not its own push), marks it for a sync at once.
	let mode: 'live' | 'poll' = values.poll ? 'poll' : 'live'
	let ended: ListenEnd | undefined
	let opens = 0
	let first: () => void = () => undefined
	const started = new Promise<void>((resolve) => {
		first = resolve
	})
	const onEvent = (event: { event: string; data: string }) => {
		if (event.event === 'reset') for (const w of watched) w.check = true
		if (event.event !== 'config') return wake?.()
		let data: { id?: unknown; name?: unknown; tool?: unknown; teamId?: unknown; hash?: unknown; deleted?: unknown }
		try {
			data = JSON.parse(event.data)
		} catch {
			return
		}
		if (typeof data !== 'object' || data === null) return
		for (const w of watched) {
			if (data.tool !== w.t.tool || data.name !== w.t.name || (data.teamId ?? undefined) !== w.t.teamId) continue
			w.heard = data.deleted !== true && typeof data.hash === 'string' ? data.hash : 'deleted'
		}
		wake?.()
	}
	const listening =
		mode === 'live'
			? s.api
					.events({
						signal: live.signal,
						onOpen: (replaying) => {
							opens++
							// Back after an outage, or reopened without a cursor to replay from: look at every config.
							if (reachable() || (opens > 1 && !replaying)) for (const w of watched) w.check = true
							first()
							wake?.()
						},
						onEvent,
						onLost: (why) => {
							unreachable(undefined, new CliFailure(why, EXIT.error, 'unreachable'))
							first()
						}
					})
					.then((end) => {
						ended = end
						first()
						wake?.()
					})
			: Promise.resolve()
	/** What the stream's end means: stop (exit 4), or poll from now on. */
	const settle = (end: ListenEnd) => {
		if (end.kind === 'revoked')
			throw new CliFailure(
				s.keySource === 'env'
					? `${s.server} revoked the key in CFGSYNC_API_KEY, so watch stopped: set CFGSYNC_API_KEY to a valid key (or unset it to use the login saved by cfgsync login), then run cfgsync watch again.`
					: `${s.server} revoked this device's key (or removed your account, or signed you out everywhere), so watch stopped: sign in again with ${loginCommand(s.profile)}, then run cfgsync watch again.`,
				EXIT.auth
			)
		if (end.kind === 'unauthorized')
			throw failure(new ApiError(401, 'unauthorized', ''), {
				server: s.server,
				keySource: s.keySource,
				login: loginCommand(s.profile)
			})
		if (end.kind === 'unsupported') {
			mode = 'poll'
			notice(dim(`[${stamp()}] ${end.why}: polling every ${interval / 1000}s instead.`))
			for (const w of watched) w.nextPoll = Math.min(w.nextPoll, Date.now())
		}
	}

	try {
		if (mode === 'live') await started
		if (ended) settle(ended)
		ended = undefined
		if (!isJsonMode())
			say(
				`Watching ${targets.map((t) => t.label).join(', ')} (${mode === 'live' ? 'live changes from the server' : `server every ${interval / 1000}s`}, local edits every ${tick / 1000}s). Ctrl-C stops.`
			)
		for (const w of watched) {
			if (stopping) break
			await cycle(w)
			w.nextPoll = Date.now() + interval
		}
		let lastLocal = Date.now()
		while (!stopping) {
			// Woken early by an event; local edits are still looked at once a second, so "settled" keeps its meaning.
			if (!ended && !watched.some((w) => w.heard !== undefined || w.check))
				await sleep(Math.max(0, lastLocal + tick - Date.now()))
			if (stopping) break
			if (ended) {
				settle(ended)
				ended = undefined
			}
			const localDue = Date.now() >= lastLocal + tick - 50
			if (localDue) lastLocal = Date.now()
			for (const w of watched) {
				if (stopping) break
				if (w.gone) continue
				let due = false
				if (localDue) {
					const now = await localSide(s, w)
					const settled = now.fingerprint === w.seen
					w.seen = now.fingerprint
					// While the server is down, edits here wait until it answers again rather than a try every second.
					due = settled && now.dirty && down === undefined
				}
				if (w.heard !== undefined) {
					// A version this machine has synced (its own push, say) needs no pull.
					if (![w.etag, getState(w.t.key)?.hash].includes(w.heard)) {
						w.check = false
						due = true
					}
					w.heard = undefined
				}
				// A request that failed while the stream stayed open is tried again each interval: otherwise
				// edits here would wait for the next event.
				const polling = mode === 'poll' || down !== undefined
				if (!due && (w.check || (polling && Date.now() >= w.nextPoll))) {
					w.check = false
					w.nextPoll = Date.now() + interval
					try {
						due = (await fetchRemote(s, w.t, w.etag)) !== 'unchanged'
						// Back after being down: what changed here meanwhile is sent now.
						if (reachable()) due = true
					} catch (error) {
						if (error instanceof CliFailure && error.exitCode === EXIT.auth) throw error
						if (isUnreachable(error)) unreachable(w, error as CliFailure)
						else warn(`[${stamp()}] ${w.t.label}: ${(error as Error).message}`)
					}
				}
				if (due) await cycle(w)
			}
		}
	} finally {
		live.abort()
		await listening
		process.off('SIGINT', onSignal)
		process.off('SIGTERM', onSignal)
	}
	if (!isJsonMode()) say(dim('Stopped.'))
}

export const watch = defineCommand({
	name: 'watch',
	group: 'Sync',
	summary: 'keep in sync in the foreground',
	usage: ['watch [TOOL] [--poll] [--interval 30s]'],
	help: WATCH_HELP,
	args: [TOOL],
	options,
	run
})
