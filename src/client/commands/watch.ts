import { ApiError } from '../api'
import { loginCommand, noMore, type Session } from '../context'
import { localEntries } from '../local-keys'
import { keptFrom, masked } from '../sync/local-keys'
import { readLocal } from '../files'
import { fileHash, sha256 } from '../hash'
import { acquireLock } from '../lock'
import type { IO } from '../io'
import { CliFailure, EXIT, failure, type Printer } from '../output'
import { pinnedScope } from '../pinned'
import { outcomeFailure, printLines, reportJson, summary } from '../report'
import { fetchRemote, type Report, runOne, type Target } from '../run'
import { configScope, memberTeams } from '../ownership'
import { getState } from '../state'
import { ownValue } from '../sync/engine'
import { defineCommand, type Input, NAME, TEAM, TOOL, YES } from './command'
import { targetsFor } from './common'
import {
	initialWatch,
	restFor,
	resting,
	transition,
	type WatchedConfig,
	type WatchState,
	type WatchEffect,
	type WatchEvent
} from './watch-state'

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

/** The local files' fingerprint, and whether any differs from the base (changed here since the last sync). */
async function localSide(s: Session, w: WatchedConfig): Promise<{ fingerprint: string; dirty: boolean }> {
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

/** What a cycle leaves stuck: conflicts and changes kept here, by the hash of their content now. */
export function stuckAfter(report: Report): Map<string, string> {
	return new Map(
		[...report.conflicts, ...report.unsent].map((d) => {
			// A member's file merged with the team's change holds the merge now, not what it held before.
			const here = d.verdict.kind === 'merged' ? d.verdict.content : d.local
			return [d.key, here === undefined ? 'absent' : fileHash(here)]
		})
	)
}

const configJson = (t: Target) => ({ tool: t.tool, name: t.name, team: t.team ?? t.teamId ?? null })

/**
 * One watch: the state machine's value (watch-state.ts) and the IO its
 * effects ask for (the lock, runOne, the files here, the live stream,
 * printing). Events come from the loop and from the stream's callbacks; each
 * is applied at once, so none is lost to a cycle under way.
 */
class Watcher {
	state: WatchState
	stopping = false
	readonly live = new AbortController()
	private wake: (() => void) | undefined
	private lock: { release: () => void } | undefined

	constructor(
		private readonly io: IO,
		private readonly out: Printer,
		private readonly s: Session,
		private readonly values: Input<typeof options>['values'],
		private readonly members: Map<string, string>,
		targets: Target[],
		private readonly interval: number
	) {
		this.state = initialWatch(targets, { poll: values.poll === true, interval })
	}

	/** --json: one report per line (JSON Lines), not the one document other commands print. */
	private get json(): boolean {
		return this.values.json === true
	}

	private line(value: unknown): void {
		this.io.stdout.write(`${JSON.stringify(value)}\n`)
	}

	/** Ctrl-C (or SIGTERM): stop after what is under way; a second one stops now. */
	readonly onSignal = () => {
		if (this.stopping) {
			this.lock?.release()
			process.exit(130)
		}
		this.stopping = true
		this.live.abort()
		this.wake?.()
	}

	sleep(ms: number): Promise<void> {
		return new Promise<void>((resolve) => {
			const timer = setTimeout(resolve, ms)
			this.wake = () => {
				clearTimeout(timer)
				resolve()
			}
		})
	}

	/** Applies an event: the state moves on, what is said or stops is done, and the effects are returned. */
	apply(event: WatchEvent): WatchEffect[] {
		const next = transition(this.state, event)
		this.state = next.state
		for (const effect of next.effects) this.perform(effect)
		return next.effects
	}

	private perform(effect: WatchEffect): void {
		if (effect.kind === 'wake') this.wake?.()
		else if (effect.kind === 'say-back') this.out.notice(`[${stamp()}] ${this.s.server} answers again; watching.`)
		else if (effect.kind === 'say-down') this.sayDown(effect)
		else if (effect.kind === 'say-polling')
			this.out.notice(this.out.dim(`[${stamp()}] ${effect.why}: polling every ${this.interval / 1000}s instead.`))
		else if (effect.kind === 'stop') throw stopped(this.s, effect.end.kind)
		else if (effect.kind === 'say-left') {
			const message = `you are no longer in team ${effect.slug} (removed, left, or the team was deleted): ${effect.config.label} is watched no more; its files here stay as they are.`
			if (this.json)
				this.line({
					at: new Date().toISOString(),
					config: configJson(effect.config),
					error: message,
					code: 'left_team'
				})
			else this.out.warn(`[${stamp()}] ${message}`)
		}
	}

	/** While the server cannot be reached, one line says so, and one more when it answers again (not one per try). */
	private sayDown(effect: Extract<WatchEffect, { kind: 'say-down' }>): void {
		if (this.json)
			this.line({
				at: new Date().toISOString(),
				config: effect.config ? configJson(effect.config) : null,
				error: effect.message,
				code: effect.code
			})
		else this.out.warn(`[${stamp()}] ${effect.message}. Watch keeps trying, and says when the server answers again.`)
	}

	private unreachable(index: number | undefined, error: CliFailure): void {
		this.apply({ kind: 'unreachable', index, message: error.message, code: error.code })
	}

	/** One sync of a config under the lock, what it did printed, what it left stuck remembered. */
	async cycle(index: number): Promise<void> {
		const t = this.state.configs[index]?.t as Target
		this.lock = await acquireLock('watch', { signals: false, waiting: this.io.stderr })
		try {
			const report = await runOne(this.s, t, {
				mode: 'sync',
				io: this.io,
				out: this.out,
				// On a terminal, watch asks there about someone else's changes (docs/sync-model.md).
				interactive: !this.json && this.io.stdin.isTTY,
				yes: this.values.yes,
				allowSecrets: this.values['allow-secrets'],
				localOnly: t.teamId !== undefined ? this.members.get(t.teamId) : undefined
			})
			this.apply({ kind: 'reachable' })
			printCycle(this.out, this.json, t, report, (value) => this.line(value))
			const problem = outcomeFailure(report)
			if (problem) this.out.warn(`[${stamp()}] ${problem.message}`)
			// Conflicts, and changes kept here (a member's, held back by a conflict, or not sent because they do not
			// parse), wait for an edit: not tried again (and reported again) every second.
			const stuck = stuckAfter(report)
			const stuckAt = getState(t.key)?.syncedAt
			for (const { key } of report.refused) {
				const content = ownValue(readLocal([key]), key)
				stuck.set(key, content === undefined ? 'absent' : fileHash(content))
			}
			const etag = report.pushed?.hash ?? report.remoteHash
			this.apply({ kind: 'synced', index, etag, local: report.local.map((o) => o.entry), stuck, stuckAt })
		} catch (error) {
			if (!(error instanceof CliFailure) || error.exitCode === EXIT.auth) throw error
			await this.failed(index, t, error)
		} finally {
			this.lock.release()
			this.lock = undefined
		}
	}

	/** A cycle that failed: said, and its files wait for a change (or the config is gone). */
	private async failed(index: number, t: Target, error: CliFailure): Promise<void> {
		if (isUnreachable(error)) return this.unreachable(index, error)
		if (this.json)
			this.line({ at: new Date().toISOString(), config: configJson(t), error: error.message, code: error.code })
		else this.out.warn(`[${stamp()}] ${t.label}: ${error.message}`)
		if (error.code === 'gone') {
			this.apply({ kind: 'gone', index })
			return
		}
		// Not again until something changes: remember what the server has now.
		const remote = await fetchRemote(this.s, t).catch(() => undefined)
		const known = getState(t.key)
		const local = readLocal((await configScope(this.s, t, { base: known?.files })).keys)
		this.apply({
			kind: 'stuck',
			index,
			etag: remote && remote !== 'unchanged' ? remote.hash : undefined,
			stuck: new Map(Object.entries(local).map(([key, content]) => [key, fileHash(content)])),
			stuckAt: known?.syncedAt
		})
	}

	/** One config's turn in the loop: look at its files (when due), then sync or poll as the state says. */
	async turn(index: number, look: boolean): Promise<void> {
		const config = this.state.configs[index]
		if (config === undefined || config.gone) return
		const local = look ? await localSide(this.s, config) : undefined
		const heard = this.state.configs[index]?.heard
		const syncedHash = heard === undefined ? undefined : getState(config.t.key)?.hash
		for (const effect of this.apply({ kind: 'turn', index, now: this.io.now(), local, syncedHash })) {
			if (effect.kind === 'sync') await this.cycle(index)
			if (effect.kind === 'poll') await this.poll(index, config.t)
		}
	}

	/** Asks the server whether the config changed (If-None-Match), and syncs it when the state says so. */
	private async poll(index: number, t: Target): Promise<void> {
		let changed: boolean
		try {
			changed = (await fetchRemote(this.s, t, this.state.configs[index]?.etag)) !== 'unchanged'
		} catch (error) {
			if (error instanceof CliFailure && error.exitCode === EXIT.auth) throw error
			if (isUnreachable(error)) this.unreachable(index, error as CliFailure)
			else this.out.warn(`[${stamp()}] ${t.label}: ${(error as Error).message}`)
			return
		}
		for (const next of this.apply({ kind: 'polled', index, changed })) if (next.kind === 'sync') await this.cycle(index)
	}

	/**
	 * The live stream (docs/client.md "cfgsync watch"): an event of a config watched here, with a hash this
	 * machine has not synced (not its own push), marks it for a sync at once. `started` resolves once it
	 * opened, was lost or ended; `listening` when it is over.
	 */
	listen(): { started: Promise<void>; listening: Promise<void> } {
		if (this.state.mode !== 'live') return { started: Promise.resolve(), listening: Promise.resolve() }
		let first: () => void = () => undefined
		const started = new Promise<void>((resolve) => {
			first = resolve
		})
		const listening = this.s.api
			.events({
				signal: this.live.signal,
				onOpen: (replaying) => {
					this.apply({ kind: 'opened', replaying })
					first()
				},
				onEvent: (event) => void this.apply({ kind: 'event', event: event.event, data: event.data }),
				onLost: (why) => {
					this.unreachable(undefined, new CliFailure(why, EXIT.error, 'unreachable'))
					first()
				}
			})
			.then((end) => {
				first()
				this.apply({ kind: 'ended', end })
			})
		return { started, listening }
	}

	/** Once the stream has opened (or not): says what is watched, and syncs each config once. */
	private async start(started: Promise<void>): Promise<void> {
		await started
		this.apply({ kind: 'settle', now: this.io.now() })
		if (!this.json) {
			const server =
				this.state.mode === 'live' ? 'live changes from the server' : `server every ${this.interval / 1000}s`
			this.out.say(
				`Watching ${this.state.configs.map((c) => c.t.label).join(', ')} (${server}, local edits every ${this.state.tick / 1000}s). Ctrl-C stops.`
			)
		}
		for (const [index] of this.state.configs.entries()) {
			if (this.stopping) break
			await this.cycle(index)
			this.apply({ kind: 'scheduled', index, now: this.io.now() })
		}
		this.apply({ kind: 'started', now: this.io.now() })
	}

	/** A first sync of each config, then turns until stopped. */
	async loop(started: Promise<void>): Promise<void> {
		await this.start(started)
		while (!this.stopping) {
			// Woken early by an event; local edits are still looked at once a second, so "settled" keeps its meaning.
			if (resting(this.state)) await this.sleep(restFor(this.state, this.io.now()))
			if (this.stopping) break
			this.apply({ kind: 'settle', now: this.io.now() })
			const look = this.apply({ kind: 'tick', now: this.io.now() }).some((e) => e.kind === 'look')
			for (const [index] of this.state.configs.entries()) {
				if (this.stopping) break
				await this.turn(index, look)
			}
		}
	}
}

const isUnreachable = (error: unknown): boolean => error instanceof CliFailure && error.code === 'unreachable'

async function run({ values, positionals, io, out, session }: Input<typeof options>) {
	noMore(positionals, 1, 'watch')
	const interval = parseInterval(values.interval ?? '30s')
	const s = session(values)
	const targets = await targetsFor(s, 'watch', positionals, values)
	if (targets.length === 0)
		throw new CliFailure(
			'This machine syncs no config yet, so there is nothing to watch: cfgsync sync --all-remote starts syncing the configs the server holds (cfgsync status lists them), or cfgsync push TOOL sends one from here.'
		)
	// As sync: a team's plain member pulls its configs and keeps changes here local.
	const members = await memberTeams(s, targets)
	const watcher = new Watcher(io, out, s, values, members, targets, interval)
	process.on('SIGINT', watcher.onSignal)
	process.on('SIGTERM', watcher.onSignal)
	const { started, listening } = watcher.listen()
	try {
		await watcher.loop(started)
	} finally {
		watcher.live.abort()
		await listening
		process.off('SIGINT', watcher.onSignal)
		process.off('SIGTERM', watcher.onSignal)
	}
	if (values.json !== true) out.say(out.dim('Stopped.'))
}

/** A cycle that changed something (or kept a member's changes here), printed: a line of JSON, or its summary. */
function printCycle(out: Printer, asJson: boolean, t: Target, report: Report, line: (value: unknown) => void): void {
	const kept = report.localOnly !== undefined && report.unsent.length > 0
	const changed = report.writes.length + report.conflicts.length + report.refused.length > 0 || report.pushed
	if (!changed && !kept) return
	if (asJson) {
		line({ at: new Date().toISOString(), ...reportJson(report) })
		return
	}
	out.say(
		`[${stamp()}] ${t.label}: ${summary(out, report)}${report.pushed ? `; pushed version ${report.pushed.version}` : ''}`
	)
	printLines(out, report)
}

/** Why watch stops when the server refuses its key. */
function stopped(s: Session, kind: 'revoked' | 'unauthorized'): CliFailure {
	if (kind === 'revoked')
		return new CliFailure(
			s.keySource === 'env'
				? `${s.server} revoked the key in CFGSYNC_API_KEY, so watch stopped: set CFGSYNC_API_KEY to a valid key (or unset it to use the login saved by cfgsync login), then run cfgsync watch again.`
				: `${s.server} revoked this device's key (or removed your account, or signed you out everywhere), so watch stopped: sign in again with ${loginCommand(s.profile)}, then run cfgsync watch again.`,
			EXIT.auth
		)
	return failure(new ApiError(401, 'unauthorized', ''), {
		server: s.server,
		keySource: s.keySource,
		login: loginCommand(s.profile)
	})
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
