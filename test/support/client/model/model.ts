import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { api, type Server } from '../../harness'
import { login, machine, type Machine, type User } from '../machines'
import { editComment, editKey, editLine, minus, parseJsonc, Tokens, tokensIn } from './edits'
import { movesEveryBase, wrongConflict } from './judge'
import { Random } from './random'
import { Trace } from './trace'
import {
	BACKUPS,
	CONFIG_IDS,
	CONFIGS,
	type ConfigId,
	isJson,
	isTemporary,
	mtimeAndSize,
	OWN_DIRS,
	ownerOf,
	PLANTED,
	readServer,
	readText,
	type ServerView,
	TEAM_SLUG,
	walk
} from './world'

/**
 * The model-based test of the client's sync model at the process level
 * (docs/sync-model.md, "How it is tested"): three machines of one user, who
 * owns a team and syncs a team claude-code config beside a personal one,
 * take seeded random steps — edits of keys, comments and lines, files created
 * and deleted, push, pull, sync, resolve, and commands killed with SIGKILL at
 * a random moment — and after every step and after a final settling round the
 * model checks what must always hold. It predicts no outputs: it checks
 * invariants.
 */

export interface Summary {
	seed: number
	steps: number
	commands: number
	kills: number
	conflicts: number
	resolves: number
	versions: number
}

interface Doc {
	config?: { tool: string; name: string; team: string | null }
	serverVersion?: number | null
	pushed?: { version: number } | null
	changes?: { path: string; action: string }[]
	conflicts?: { path: string; why: string; keys?: unknown }[]
	/** Files changed on the server that a push left unwritten here: their base stays the old one. */
	unpulled?: { path: string }[]
	refused?: { path: string }[]
	error?: string
}

interface Ran {
	code: number | null
	stdout: string
	stderr: string
	killed: boolean
}

type Kind = 'push' | 'pull' | 'sync' | 'resolve' | 'status'

interface Acked {
	raw: string
	hash: string
	step: number
	machine: string
}

export class ModelFailure extends Error {}

const TOOL_DIRS = ['.gemini', '.claude']

const shown = (path: string) => `~/${path}`

function docsOf(stdout: string): Doc[] {
	try {
		const value = JSON.parse(stdout)
		return (Array.isArray(value) ? value : [value]).filter((d) => typeof d === 'object' && d !== null)
	} catch {
		return []
	}
}

const configOfDoc = (doc: Doc): ConfigId | undefined => {
	if (!doc.config) return undefined
	if (doc.config.tool === 'gemini-cli') return 'gemini'
	if (doc.config.tool === 'claude-code') return doc.config.team ? 'team' : 'personal'
	return undefined
}

const excerpt = (text: string | undefined) =>
	text === undefined ? '(no file)' : JSON.stringify(text.length > 400 ? `${text.slice(0, 400)}…` : text)

export class Model {
	readonly random: Random
	readonly tokens = new Tokens()
	readonly trace = new Trace()
	readonly names = ['A', 'B', 'C']
	machines: Machine[] = []
	teamId = ''
	view = {} as ServerView
	/** Every tool file the model ever made, on any machine. */
	readonly universe = new Set<string>()
	readonly acked: Record<ConfigId, Map<number, Acked>> = { gemini: new Map(), personal: new Map(), team: new Map() }
	/** Per machine and config, every version its base could be now (one when known). */
	readonly bases: Record<ConfigId, Set<number>>[] = []
	/** Per machine, the files the person changed there since they last equalled this machine's base. */
	readonly edited: Set<string>[] = []
	/** Per machine and JSON file, the keys the person changed there since the file last equalled the base. */
	readonly editedKeys: Map<string, Set<string>>[] = []
	readonly pending: Set<ConfigId>[] = []
	readonly lastKilled: boolean[] = []
	private violations: string[] = []
	/** How long the last commands of each kind took here, to aim kills at their last part, where files are written. */
	private durations = new Map<string, number[]>()
	private backupTokens = new Map<string, { stamp: string; tokens: Set<string> }>()
	private ownCounter = 0
	private teamCounter = 1
	step = 0
	readonly stats = { commands: 0, kills: 0, conflicts: 0, resolves: 0 }

	constructor(
		readonly server: Server,
		readonly user: User,
		readonly seed: number
	) {
		this.random = new Random(seed)
	}

	// ---- set-up ---------------------------------------------------------------------------------------------------

	async setUp(): Promise<void> {
		for (let i = 0; i < 3; i++) {
			const m = machine(this.server)
			const logged = await login(m, this.user, `model-${this.names[i]}`)
			if (logged.code !== 0) throw new ModelFailure(`login on ${this.names[i]} failed: ${logged.stderr}`)
			for (const [path, content] of Object.entries(PLANTED)) m.file(path, content)
			this.machines.push(m)
			this.bases.push({ gemini: new Set(), personal: new Set(), team: new Set() })
			this.edited.push(new Set())
			this.editedKeys.push(new Map())
			this.pending.push(new Set())
			this.lastKilled.push(false)
		}
		const [a] = this.machines as [Machine]
		const created = await a.cfgsync(['team', 'create', 'Model Team', '--slug', TEAM_SLUG])
		if (created.code !== 0) throw new ModelFailure(`team create failed: ${created.stderr}`)
		this.teamId = (await api(this.server, 'GET', `/api/teams/${TEAM_SLUG}`, this.user.key)).body.id

		const t = (path: string, what: string) => this.tokens.make(0, 'A', path, what)
		this.write(0, '.gemini/settings.json', [
			'{',
			`  // note ${t('.gemini/settings.json', 'comment')}`,
			`  "alpha": "${t('.gemini/settings.json', 'alpha')}",`,
			`  "beta": "${t('.gemini/settings.json', 'beta')}",`,
			'  "ui": {',
			`    "size": "${t('.gemini/settings.json', 'ui.size')}",`,
			`    "mode": "${t('.gemini/settings.json', 'ui.mode')}"`,
			'  }',
			'}',
			''
		])
		this.write(0, '.gemini/GEMINI.md', [
			'# Gemini notes',
			...[1, 2, 3].map(() => `- ${t('.gemini/GEMINI.md', 'line')}`),
			''
		])
		this.write(0, '.claude/settings.json', [
			'{',
			`  // note ${t('.claude/settings.json', 'comment')}`,
			`  "k1": "${t('.claude/settings.json', 'k1')}",`,
			'  "extra": {',
			`    "a": "${t('.claude/settings.json', 'extra.a')}"`,
			'  }',
			'}',
			''
		])
		this.write(0, '.claude/CLAUDE.md', ['# Rules', ...[1, 2, 3].map(() => `- ${t('.claude/CLAUDE.md', 'line')}`), ''])
		this.write(0, '.claude/commands/team-1.md', [
			'# Team command 1',
			`- ${t('.claude/commands/team-1.md', 'line')}`,
			''
		])

		const home = a.home
		const setup: [number, Kind, ConfigId[], string[]][] = [
			[0, 'push', ['team'], ['push', ...CONFIGS.team.args, join(home, '.claude/commands/team-1.md')]],
			[
				0,
				'push',
				['personal'],
				['push', 'claude-code', join(home, '.claude/settings.json'), join(home, '.claude/CLAUDE.md')]
			],
			[0, 'push', ['gemini'], ['push', 'gemini-cli']]
		]
		for (const other of [1, 2])
			for (const id of ['team', 'personal', 'gemini'] as ConfigId[])
				setup.push([other, 'pull', [id], ['pull', ...CONFIGS[id].args]])
		for (const [mi, kind, touched, args] of setup) {
			const ran = await this.command(mi, kind, touched, [...args, '--yes', '--json'])
			if (ran.code !== 0)
				throw new ModelFailure(
					`set-up failed: machine ${this.names[mi]}: cfgsync ${args.join(' ')} exited ${ran.code}\n${this.trace.format()}`
				)
		}
		// The model reads acknowledged versions from --json output (docs/client.md): it must say what it pushed.
		for (const id of CONFIG_IDS)
			if (!this.acked[id].has(1))
				throw new ModelFailure(
					`set-up: the first push of ${id} did not report "pushed": {"version": 1} in its --json output`
				)
		await this.check({ settled: false })
		this.failIfViolated('set-up')
	}

	private write(mi: number, path: string, lines: string[]): void {
		;(this.machines[mi] as Machine).file(path, lines.join('\n'))
		this.universe.add(path)
	}

	// ---- running commands -----------------------------------------------------------------------------------------

	/** This machine's files of one config (or all its tool files) as they are on disk now, temporary files left out. */
	localFiles(mi: number, id?: ConfigId): Map<string, string> {
		const m = this.machines[mi] as Machine
		const files = new Map<string, string>()
		for (const dir of TOOL_DIRS)
			for (const rel of walk(join(m.home, dir), dir)) {
				if (isTemporary(rel) || (id !== undefined && ownerOf(rel) !== id)) continue
				const text = readText(m.home, rel)
				if (text !== undefined) files.set(rel, text)
			}
		return files
	}

	private async spawn(mi: number, args: string[], killAfterMs?: number): Promise<Ran> {
		const m = this.machines[mi] as Machine
		this.stats.commands += 1
		if (killAfterMs === undefined) {
			const started = performance.now()
			const result = await m.cfgsync(args)
			const took = this.durations.get(args[0] as string) ?? []
			took.push(performance.now() - started)
			this.durations.set(args[0] as string, took.slice(-15))
			return { ...result, killed: false }
		}
		const proc = m.start(args)
		const out = new Response(proc.stdout as ReadableStream).text()
		const err = new Response(proc.stderr as ReadableStream).text()
		await Promise.race([proc.exited, Bun.sleep(killAfterMs)])
		const killed = proc.exitCode === null
		if (killed) {
			proc.kill('SIGKILL')
			this.stats.kills += 1
		}
		const code = await proc.exited
		return { code: killed ? null : code, stdout: await out, stderr: await err, killed }
	}

	/**
	 * Runs one command and keeps the model's books: versions it says it pushed,
	 * the bases this machine may now have, conflicts it reports (judged against
	 * what both sides held just before), and what `resolve --theirs` dropped.
	 */
	async command(mi: number, kind: Kind, touched: ConfigId[], args: string[], killAfterMs?: number): Promise<Ran> {
		const name = this.names[mi] as string
		const before = this.localFiles(mi)
		const viewBefore = this.view
		const basesBefore = new Map(touched.map((id) => [id, new Set(this.bases[mi]?.[id])]))
		const ran = await this.spawn(mi, args, killAfterMs)
		this.trace.command(this.step, name, args, ran, killAfterMs)
		// The next command that changes something cleans up after a killed one (a read-only status need not).
		if (kind !== 'status') this.lastKilled[mi] = ran.killed
		this.view = await readServer(this.server, this.user, this.teamId)
		const docs = docsOf(ran.stdout)
		const bases = this.bases[mi] as Record<ConfigId, Set<number>>
		const latestOf = (view: ServerView, id: ConfigId) => view[id]?.latest

		// Versions the client said it pushed are acknowledged: they must stay readable, unchanged.
		for (const doc of docs) {
			const id = configOfDoc(doc)
			if (!id || !doc.pushed) continue
			const stored = this.view[id]?.versions.get(doc.pushed.version)
			if (!stored) {
				this.violate(
					`${name}: cfgsync ${args.join(' ')} said it pushed version ${doc.pushed.version} of ${id}, which the server does not have`
				)
				continue
			}
			const known = this.acked[id].get(doc.pushed.version)
			if (!known)
				this.acked[id].set(doc.pushed.version, { raw: stored.raw, hash: stored.hash, step: this.step, machine: name })
		}

		if (!ran.killed && ran.code !== 0 && ran.code !== 1 && ran.code !== 3)
			this.violate(`${name}: cfgsync ${args.join(' ')} exited ${ran.code}: ${ran.stderr.trim().slice(0, 300)}`)

		if (kind === 'status') {
			const after = this.localFiles(mi)
			for (const path of new Set([...before.keys(), ...after.keys()]))
				if (before.get(path) !== after.get(path))
					this.violate(`${name}: cfgsync status changed ${shown(path)}: a status writes nothing`)
			return ran
		}

		for (const id of touched) {
			const doc = docs.find((d) => configOfDoc(d) === id)
			const possible = bases[id]
			if (ran.killed || !doc || doc.error !== undefined) {
				// Killed, or failed before it said anything of this config: the base is the old one or what the server holds.
				if (ran.killed || ran.code !== 0) {
					for (const v of [latestOf(viewBefore, id), latestOf(this.view, id)]) if (v !== undefined) possible.add(v)
				}
				continue
			}
			const conflicts = doc.conflicts ?? []
			const version = doc.pushed?.version ?? doc.serverVersion ?? undefined
			if (conflicts.length > 0) {
				this.stats.conflicts += 1
				this.pending[mi]?.add(id)
				for (const conflict of conflicts) this.judgeConflict(mi, args, id, conflict, before, viewBefore, basesBefore)
				if (typeof doc.serverVersion === 'number') possible.add(doc.serverVersion)
			} else {
				this.pending[mi]?.delete(id)
				if (typeof version === 'number') {
					// A run that left files as they were (a push does not write the server's changes, a push of
					// named PATHs looks at no other file) moves only the other files' base: the base is then one
					// version for some files and the old one for others.
					if (!movesEveryBase(kind, args, doc)) possible.add(version)
					else {
						possible.clear()
						possible.add(version)
					}
				}
			}
			// A file equal to the one base this machine now surely has holds none of the person's unsent changes.
			if (possible.size === 1 && conflicts.length === 0) {
				const [v] = [...possible]
				const synced = this.view[id]?.versions.get(v as number)?.files
				if (synced) {
					const after = this.localFiles(mi, id)
					for (const path of this.universe)
						if (ownerOf(path) === id && after.get(path) === synced[path]) {
							this.edited[mi]?.delete(path)
							this.editedKeys[mi]?.delete(path)
						}
				}
			}
		}

		if (kind === 'resolve' && args.includes('--theirs') && !ran.killed) {
			for (const id of touched) {
				const was = new Set(
					[...before].filter(([path]) => ownerOf(path) === id).flatMap(([, text]) => [...tokensIn(text)])
				)
				const now = new Set([...this.localFiles(mi, id).values()].flatMap((text) => [...tokensIn(text)]))
				this.tokens.excuse(minus(was, now), `dropped by cfgsync resolve --theirs on ${name} at step ${this.step}`)
			}
		}
		return ran
	}

	private judgeConflict(
		mi: number,
		args: string[],
		id: ConfigId,
		conflict: { path: string; why: string },
		before: Map<string, string>,
		viewBefore: ServerView,
		basesBefore: Map<ConfigId, Set<number>>
	): void {
		const path = conflict.path
		const config = viewBefore[id]
		const candidates = [...(basesBefore.get(id) ?? [])]
		// A base the model cannot read back (none yet) leaves the conflict unjudged, and so does a file of another
		// config (it is in this one only because the client broke "one file, one owner", reported on its own).
		if (!config || candidates.length === 0 || candidates.some((v) => !config.versions.has(v))) return
		if (ownerOf(path) !== id) return
		const bases = candidates.map((v) => config.versions.get(v)?.files[path])
		const local = before.get(path)
		const remote = config.versions.get(config.latest)?.files[path]
		const reason = wrongConflict({
			path,
			local,
			remote,
			bases,
			editedHere: this.edited[mi]?.has(path) ?? true,
			keysEditedHere: this.editedKeys[mi]?.get(path) ?? new Set()
		})
		if (reason)
			this.violate(
				`${this.names[mi]}: cfgsync ${args.join(' ')} reported a conflict in ${shown(path)} of the ${id} config ("${conflict.why}"), but ${reason}.\n` +
					`    base (version ${candidates.join(' or ')}): ${bases.map(excerpt).join(' or ')}\n` +
					`    here: ${excerpt(local)}\n    server (version ${config.latest}): ${excerpt(remote)}`
			)
	}

	// ---- steps ----------------------------------------------------------------------------------------------------

	async run(steps: number): Promise<void> {
		for (this.step = 1; this.step <= steps; this.step++) {
			await this.takeStep()
			await this.check({ settled: false })
			this.failIfViolated(`step ${this.step}`)
		}
		this.step = steps + 1
		await this.settle()
		this.failIfViolated('the settling round')
		await this.check({ settled: true })
		this.failIfViolated('the settling round')
	}

	private async takeStep(): Promise<void> {
		const r = this.random
		const mi = r.int(0, 2)
		if ((this.pending[mi]?.size ?? 0) > 0 && r.chance(0.5)) return this.resolve(mi)
		const kind = r.weighted({ edit: 45, command: 42, kill: 13 })
		if (kind === 'edit') return this.edit(mi)
		const which = r.weighted(
			kind === 'kill'
				? { sync: 4, push: 3, pull: 3, status: 0, syncTool: 0 }
				: { sync: 30, syncTool: 10, push: 25, pull: 25, status: 5 }
		)
		const killAfter = kind === 'kill' ? this.killDelay(which === 'syncTool' ? 'sync' : which) : undefined
		if (which === 'sync') {
			await this.command(mi, 'sync', CONFIG_IDS, ['sync', '--yes', '--json'], killAfter)
		} else if (which === 'syncTool') {
			const tool = r.pick(['gemini-cli', 'claude-code'] as const)
			const touched: ConfigId[] = tool === 'gemini-cli' ? ['gemini'] : ['personal', 'team']
			await this.command(mi, 'sync', touched, ['sync', tool, '--yes', '--json'], killAfter)
		} else if (which === 'status') {
			await this.command(mi, 'status', CONFIG_IDS, ['status', '--json'])
		} else {
			const id = r.pick(CONFIG_IDS)
			await this.command(mi, which, [id], [which, ...CONFIGS[id].args, '--yes', '--json'], killAfter)
		}
	}

	/**
	 * When to kill a command: at any moment of 0–150 ms, or of its usual run time
	 * on this machine when that is longer (a loaded machine starts it slower); half
	 * of the kills land in the last 40% of that time, where it writes files and state.
	 */
	private killDelay(command: string): number {
		const [anywhere, late, u] = [this.random.chance(0.5), this.random.next(), this.random.next()]
		const took = [...(this.durations.get(command) ?? [])].sort((a, b) => a - b)
		const usual = took.length > 0 ? (took[Math.floor(took.length / 2)] as number) : 150
		if (anywhere) return Math.round(u * Math.max(150, usual * 1.1))
		return Math.round(usual * (0.6 + 0.4 * late))
	}

	private async resolve(mi: number): Promise<void> {
		const id = this.random.pick([...(this.pending[mi] as Set<ConfigId>)].sort())
		const side = this.random.pick(['--mine', '--theirs'])
		this.stats.resolves += 1
		await this.command(mi, 'resolve', [id], ['resolve', ...CONFIGS[id].args, side, '--yes', '--json'])
	}

	private async edit(mi: number): Promise<void> {
		const r = this.random
		const m = this.machines[mi] as Machine
		const name = this.names[mi] as string
		const kind = r.weighted({
			geminiKey: 14,
			geminiComment: 8,
			claudeKey: 8,
			claudeComment: 4,
			text: 30,
			create: 6,
			remove: 4,
			teamFile: 2
		})
		const note = (action: string) => this.trace.add({ step: this.step, machine: name, action })
		const change = (path: string, next: string | undefined, what: string, key?: string) => {
			if (key !== undefined) {
				const keys = this.editedKeys[mi] as Map<string, Set<string>>
				keys.set(path, new Set([...(keys.get(path) ?? []), key]))
			}
			const old = readText(m.home, path)
			if (next === undefined) rmSync(join(m.home, path), { force: true })
			else m.file(path, next)
			this.universe.add(path)
			this.edited[mi]?.add(path)
			this.tokens.excuse(
				minus(tokensIn(old), tokensIn(next)),
				`changed by the person on ${name} at step ${this.step} (${what})`
			)
			note(`edit ${shown(path)}: ${what}`)
		}
		const token = (path: string, what: string) => () => this.tokens.make(this.step, name, path, what)

		if (kind === 'geminiKey' || kind === 'claudeKey' || kind === 'geminiComment' || kind === 'claudeComment') {
			const path = kind.startsWith('gemini') ? '.gemini/settings.json' : '.claude/settings.json'
			const text = readText(m.home, path)
			if (text === undefined) return note(`(no ${shown(path)} here: nothing to edit)`)
			const edited = kind.endsWith('Key')
				? editKey(text, path, r, token(path, 'key'))
				: editComment(text, r, token(path, 'comment'))
			if (!edited) {
				this.violate(`${name}: ${shown(path)} does not parse as JSON with comments: ${excerpt(text)}`)
				return
			}
			return change(path, edited.text, edited.what, edited.key)
		}
		const own = (dir: string, pattern: RegExp) =>
			walk(join(m.home, dir), dir).filter(
				(p) => pattern.test(p) && !isTemporary(p) && readText(m.home, p) !== undefined
			)
		if (kind === 'text') {
			const paths = [
				...['.gemini/GEMINI.md', '.claude/CLAUDE.md'].filter((p) => readText(m.home, p) !== undefined),
				...own('.claude/commands', /\.md$/)
			]
			if (paths.length === 0) return note('(no text file here to edit)')
			const path = r.pick(paths)
			const edited = editLine(readText(m.home, path) as string, r, token(path, 'line'))
			return change(path, edited.text, edited.what)
		}
		if (kind === 'create') {
			this.ownCounter += 1
			const path = `.claude/commands/own-${name.toLowerCase()}${this.ownCounter}.md`
			const t = token(path, 'line')
			return change(path, `# My command ${this.ownCounter}\n- ${t()}\n- ${t()}\n`, 'create the file')
		}
		if (kind === 'remove') {
			const paths = own('.claude/commands', /\/own-[a-z0-9]+\.md$/)
			if (paths.length === 0) return note('(no own command here to delete)')
			return change(r.pick(paths), undefined, 'delete the file')
		}
		// An owner adds a file to the team config, naming it on the command line (the only way a team config grows).
		this.teamCounter += 1
		const path = `.claude/commands/team-${this.teamCounter}.md`
		const t = token(path, 'line')
		change(path, `# Team command ${this.teamCounter}\n- ${t()}\n`, 'create the file for the team')
		const ran = await this.command(
			mi,
			'push',
			['team'],
			['push', ...CONFIGS.team.args, join(m.home, path), '--yes', '--json']
		)
		if (ran.code !== 0) {
			// Not in the team config: the file goes, so that no config is left to take it in.
			change(path, undefined, 'delete it again: the team push did not go through')
		}
	}

	// ---- settling -------------------------------------------------------------------------------------------------

	/** Every machine syncs, settling any conflict, until a whole round changes nothing. */
	private async settle(): Promise<void> {
		for (let round = 1; round <= 8; round++) {
			let quiet = true
			const latest = CONFIG_IDS.map((id) => this.view[id]?.latest)
			for (let mi = 0; mi < 3; mi++) {
				const ran = await this.command(mi, 'sync', CONFIG_IDS, ['sync', '--yes', '--json'])
				if (ran.code !== 0) quiet = false
				if (docsOf(ran.stdout).some((d) => (d.changes?.length ?? 0) > 0)) quiet = false
				for (const id of [...(this.pending[mi] as Set<ConfigId>)].sort()) {
					quiet = false
					const side = this.random.pick(['--mine', '--theirs'])
					this.stats.resolves += 1
					await this.command(mi, 'resolve', [id], ['resolve', ...CONFIGS[id].args, side, '--yes', '--json'])
				}
			}
			if (CONFIG_IDS.some((id, i) => this.view[id]?.latest !== latest[i])) quiet = false
			if (quiet) return
			this.failIfViolated(`settling round ${round}`)
		}
		this.violate(
			'the machines did not settle: eight rounds of sync on every machine (settling every conflict) still changed something'
		)
	}

	// ---- invariants -----------------------------------------------------------------------------------------------

	private violate(what: string): void {
		this.violations.push(what)
	}

	private failIfViolated(where: string): void {
		if (this.violations.length === 0) return
		const list = this.violations.map((v) => `  - ${v}`).join('\n')
		throw new ModelFailure(
			`model test failed at ${where} (seed ${this.seed}; replay: CFGSYNC_MODEL_SEED=${this.seed} CFGSYNC_MODEL_STEPS=${Math.max(this.step, 1)}):\n${list}\n\nlast steps (CFGSYNC_MODEL_TRACE=N shows N):\n${this.trace.format(Number(process.env.CFGSYNC_MODEL_TRACE ?? 30))}`
		)
	}

	/** Every invariant, on the server's versions and every machine's home. */
	async check({ settled }: { settled: boolean }): Promise<void> {
		if (Object.keys(this.view).length === 0) this.view = await readServer(this.server, this.user, this.teamId)
		const view = this.view
		const seen = new Set<string>()
		const addTokens = (text: string | undefined) => {
			for (const token of tokensIn(text)) seen.add(token)
		}

		// 1. An acknowledged version never changes or disappears.
		for (const id of CONFIG_IDS) {
			for (const [version, ack] of this.acked[id]) {
				const stored = view[id]?.versions.get(version)
				if (!stored)
					this.violate(
						`version ${version} of ${id} (acknowledged to ${ack.machine} at step ${ack.step}) is gone from the server`
					)
				else if (stored.raw !== ack.raw || stored.hash !== ack.hash)
					this.violate(
						`version ${version} of ${id} (acknowledged to ${ack.machine} at step ${ack.step}) changed on the server`
					)
			}
			// Every version stays readable (history, rollback): an edit in any of them is kept, acknowledged or not
			// (a push killed after the server stored it, a side not chosen in a conflict).
			for (const stored of view[id]?.versions.values() ?? []) addTokens(stored.raw)
		}

		// 6. One file, one owner; a config holds only its tool's files (and none the model never made).
		for (const id of CONFIG_IDS) {
			for (const [version, stored] of view[id]?.versions ?? []) {
				for (const path of Object.keys(stored.files)) {
					const owner = ownerOf(path)
					if (id === 'team' && owner === 'personal')
						this.violate(
							`the team config's version ${version} holds ${shown(path)}, a file of the personal claude-code config`
						)
					else if (id === 'personal' && owner === 'team')
						this.violate(
							`the personal claude-code config's version ${version} took in ${shown(path)}, which the team config holds`
						)
					else if (owner !== id || !this.universe.has(path))
						this.violate(`${id}'s version ${version} holds ${shown(path)}, which is no file of that config`)
				}
			}
		}

		for (let mi = 0; mi < 3; mi++) {
			const m = this.machines[mi] as Machine
			const name = this.names[mi] as string
			// 5. Nothing outside the tools' files is written.
			for (const [path, content] of Object.entries(PLANTED))
				if (readText(m.home, path) !== content)
					this.violate(`${name}: ${shown(path)} changed; it is nobody's tool file`)
			// 4. No stray files; temporary files only until the next command after a kill.
			for (const path of walk(m.home)) {
				if (PLANTED[path] !== undefined) continue
				const own = OWN_DIRS.some((dir) => path.startsWith(dir))
				if (isTemporary(path)) {
					if (settled || !this.lastKilled[mi])
						this.violate(
							`${name}: temporary file ${shown(path)} left behind${settled ? ' after the settling round' : ' after a command that ran to its end'}`
						)
					continue
				}
				if (own) continue
				if (!this.universe.has(path) || ownerOf(path) === undefined) this.violate(`${name}: stray file ${shown(path)}`)
				else {
					const text = readText(m.home, path)
					addTokens(text)
					if (isJson(path) && text !== undefined && parseJsonc(text) === undefined)
						this.violate(`${name}: ${shown(path)} does not parse any more: ${excerpt(text)}`)
				}
			}
			// Backups count as kept (they do not change once written: read each file once).
			for (const rel of walk(join(m.home, BACKUPS))) {
				const full = join(m.home, BACKUPS, rel)
				const stamp = mtimeAndSize(full)
				let cached = this.backupTokens.get(full)
				if (!cached || cached.stamp !== stamp) {
					cached = { stamp, tokens: tokensIn(readFileSync(full, 'utf8')) }
					this.backupTokens.set(full, cached)
				}
				for (const token of cached.tokens) seen.add(token)
			}
		}

		// 2. No edit vanishes without a backup or an explicit choice.
		const lost = this.tokens.live().filter((birth) => !seen.has(birth.token))
		for (const birth of lost.slice(0, 5))
			this.violate(
				`the edit ${birth.token} (${birth.what} in ${shown(birth.path)}, made on ${birth.machine} at step ${birth.step}) is gone: on no machine, in no version on the server, in no backup, and nobody chose to drop it`
			)
		if (lost.length > 5) this.violate(`and ${lost.length - 5} more edits are gone the same way`)

		// 3. After settling: every machine holds exactly the server's latest files, byte for byte.
		if (settled) {
			const expected = new Map<string, string>()
			for (const id of CONFIG_IDS) {
				const config = view[id]
				for (const [path, content] of Object.entries(config?.versions.get(config.latest)?.files ?? {}))
					expected.set(path, content)
			}
			for (let mi = 0; mi < 3; mi++) {
				const m = this.machines[mi] as Machine
				const name = this.names[mi] as string
				if ((this.pending[mi]?.size ?? 0) > 0)
					this.violate(`${name}: still in conflict after settling: ${[...(this.pending[mi] ?? [])].join(', ')}`)
				const here = new Set(TOOL_DIRS.flatMap((dir) => walk(join(m.home, dir), dir)).filter((p) => !isTemporary(p)))
				for (const [path, content] of expected) {
					const bytes = m.bytes(path)
					if (!bytes) this.violate(`${name}: ${shown(path)} is on the server but not here after settling`)
					else if (!bytes.equals(Buffer.from(content, 'utf8')))
						this.violate(
							`${name}: ${shown(path)} differs from the server's latest after settling: here ${excerpt(bytes.toString('utf8'))}, server ${excerpt(content)}`
						)
				}
				for (const path of here)
					if (!expected.has(path))
						this.violate(`${name}: ${shown(path)} is here but in no config on the server after settling`)
			}
		}
	}

	summary(steps: number): Summary {
		return {
			seed: this.seed,
			steps,
			...this.stats,
			versions: CONFIG_IDS.reduce((n, id) => n + (this.view[id]?.versions.size ?? 0), 0)
		}
	}
}
