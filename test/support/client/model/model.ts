import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { api, type Server } from '../../harness'
import { login, machine, type Machine, type User } from '../machines'
import { editComment, editKey, editLine, inTwoSpaces, minus, offIndent, parseJsonc, Tokens, tokensIn } from './edits'
import { droppable, leavesOf, movesEveryBase, mustKeep, wrongConflict } from './judge'
import { Random } from './random'
import { Trace } from './trace'
import {
	BACKUPS,
	CLAUDE_JSON,
	CLAUDE_PART,
	CONFIGS,
	type ConfigId,
	INERT_KEYS,
	isJson,
	isTemporary,
	MACHINES,
	mtimeAndSize,
	OWN_DIRS,
	ownerOf,
	PLANTED,
	readServer,
	readText,
	type ServerView,
	SHARED,
	STORE_IDS,
	STORES,
	type StoreId,
	TEAM_FILE,
	TEAM_SLUG,
	type UserName,
	walk
} from './world'

/**
 * The model-based test of the client's sync model at the process level
 * (docs/sync-model.md, "How it is tested"): three machines — A and B of ada,
 * who owns a team, and C of ben, a plain member of it — sync their personal
 * configs and the team's claude-code config, which holds a file the personal
 * configs also list. They take seeded random steps — edits of keys, comments
 * and lines, files created and deleted, push, pull, sync, resolve and discard,
 * with and without --yes, a member's push to the team, and commands killed
 * with SIGKILL at a random moment or at one of the client's crash points —
 * and after every step and after a final settling round the model checks
 * what must always hold. It predicts no outputs: it checks invariants.
 */

export interface Summary {
	seed: number
	steps: number
	commands: number
	kills: number
	conflicts: number
	resolves: number
	held: number
	refusedMemberPushes: number
	versions: number
}

interface Doc {
	config?: { tool: string; name: string; team: string | null }
	serverVersion?: number | null
	pushed?: { version: number } | null
	changes?: { path: string; action: string }[]
	conflicts?: { path: string; why: string; keys?: unknown }[]
	/** Files changed here and not sent (a pull; a member's sync): they stay on this machine. */
	unsent?: { path: string }[]
	/** Files changed on the server that a push left unwritten here: their base stays the old one. */
	unpulled?: { path: string }[]
	/** Files left as they were: a link out of home, or someone else's change held for review. */
	refused?: { path: string; why?: string }[]
	discarded?: { path: string }[]
	error?: string
	code?: string
}

interface Ran {
	code: number | null
	stdout: string
	stderr: string
	killed: boolean
}

type Kind = 'push' | 'pull' | 'sync' | 'resolve' | 'status' | 'discard'

/** How a command is stopped: SIGKILL after some milliseconds, or at one of the client's crash points (crash-points.ts). */
type Kill = { afterMs: number } | { at: string }

interface Acked {
	raw: string
	hash: string
	step: number
	machine: string
}

export class ModelFailure extends Error {}

const TOOL_DIRS = ['.gemini', '.claude']
/** Crash points of the client (src/client/crash-points.ts): after the N-th file, with a temporary copy in place, after a push was stored. */
const CRASH_POINTS = ['write:1', 'write:2', 'write:3', 'temporary:1', 'temporary:2', 'pushed']

const shown = (path: string) => `~/${path}`

/**
 * Each machine keeps its formatting (docs/sync-model.md): B lays out its Gemini settings in 4 spaces a level where
 * the others use 2, and every merge must write there in 4.
 */
const GEMINI_SETTINGS = '.gemini/settings.json'
const indentOf = (machine: string, path: string) => (machine === 'B' && path === GEMINI_SETTINGS ? 4 : 2)
/** The Gemini settings with their indentation aside: the server holds whichever machine's layout pushed last. */
/** The indentation unit a text shows (spaces in its first indented line), 2 when it shows none. */
const unitOf = (text: string | undefined) => /\n( +)\S/.exec(text ?? '')?.[1]?.length ?? 2
const layoutAside = (text: string) => inTwoSpaces(text, offIndent(text, 4).length === 0 ? 4 : 2)

/** Each machine's own MCP server in ~/.claude.json, which it keeps to itself with `cfgsync local`. */
const privateServer = (machine: string) => ({
	name: `private-${machine.toLowerCase()}`,
	value: { type: 'http', url: `https://private.example/kept-on-${machine.toLowerCase()}-only` }
})

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

/** The `{"error", "code"}` lines a --json run wrote to stderr. */
function errorsOf(stderr: string): { error: string; code?: string }[] {
	return stderr
		.split('\n')
		.flatMap((line) => {
			try {
				const value = JSON.parse(line)
				return typeof value === 'object' && value !== null && typeof value.error === 'string' ? [value] : []
			} catch {
				return []
			}
		})
		.filter(Boolean)
}

/** A team file as a run judged it: its content here and the server's (see Model.acceptUnsure). */
const unsureKey = (path: string, here: string | undefined, server: string | undefined) =>
	JSON.stringify([path, here ?? null, server ?? null])

const excerpt = (text: string | undefined) =>
	text === undefined ? '(no file)' : JSON.stringify(text.length > 400 ? `${text.slice(0, 400)}…` : text)

export class Model {
	readonly random: Random
	readonly tokens = new Tokens()
	readonly trace = new Trace()
	readonly specs = MACHINES
	readonly names = MACHINES.map((m) => m.name)
	machines: Machine[] = []
	teamId = ''
	view = {} as ServerView
	/** Every tool file the model ever made, on any machine. */
	readonly universe = new Set<string>()
	readonly acked = Object.fromEntries(STORE_IDS.map((id) => [id, new Map<number, Acked>()])) as Record<
		StoreId,
		Map<number, Acked>
	>
	/** Per personal claude-code config, `~/.claude/settings.json` as it held it before the team took the file. */
	readonly frozen: Partial<Record<StoreId, string>> = {}
	/** Per machine and config, every version its base could be now (one when known). */
	readonly bases: Record<ConfigId, Set<number>>[] = []
	/** Per machine, the files the person changed there since they last equalled this machine's base. */
	readonly edited: Set<string>[] = []
	/** Per machine and JSON file, the keys the person changed there since the file last equalled the base. */
	readonly editedKeys: Map<string, Set<string>>[] = []
	readonly pending: Set<ConfigId>[] = []
	/** Per machine and config, the files its last report named in conflict. */
	readonly conflicted: Map<ConfigId, Set<string>>[] = []
	readonly lastKilled: boolean[] = []
	/** Per machine, every content (`path\0content`) a tool file ever had there: what it pushed or accepted is among them. */
	private readonly seenHere: Set<string>[] = []
	/**
	 * Per machine, what a killed run with --yes may have accepted without writing it (the journal keeps what was
	 * accepted, and a later run writes that content unasked): for each team file, the file here and the server's
	 * copy that run judged (`unsureKey`). The client writes the same content again from the same two (and base).
	 */
	private readonly acceptUnsure: Set<string>[] = []
	private violations: string[] = []
	/** How long the last commands of each kind took here, to aim kills at their last part, where files are written. */
	private durations = new Map<string, number[]>()
	/** Per machine: false once its Gemini settings held no indented line, so no layout of its own to keep. */
	private layoutShown: boolean[] = []
	private backupTokens = new Map<string, { stamp: string; tokens: Set<string> }>()
	private ownCounter = 0
	private mcpCounter = 0
	private teamCounter = 1
	step = 0
	readonly stats = { commands: 0, kills: 0, conflicts: 0, resolves: 0, held: 0, refusedMemberPushes: 0 }

	constructor(
		readonly server: Server,
		readonly users: Record<UserName, User>,
		readonly seed: number
	) {
		this.random = new Random(seed)
	}

	private get keys(): Record<UserName, string> {
		return { ada: this.users.ada.key, ben: this.users.ben.key }
	}

	/** The server config a machine syncs as `id`, if it syncs one. */
	storeOf(mi: number, id: ConfigId): StoreId | undefined {
		return this.specs[mi]?.stores[id]
	}

	kindsOf(mi: number): ConfigId[] {
		return (['gemini', 'personal', 'team'] as ConfigId[]).filter((id) => this.storeOf(mi, id) !== undefined)
	}

	private member(mi: number): boolean {
		return this.specs[mi]?.role === 'member'
	}

	// ---- set-up ---------------------------------------------------------------------------------------------------

	async setUp(): Promise<void> {
		for (const [i, spec] of this.specs.entries()) {
			const m = machine(this.server)
			const logged = await login(m, this.users[spec.user], `model-${spec.name}`)
			if (logged.code !== 0) throw new ModelFailure(`login on ${spec.name} failed: ${logged.stderr}`)
			for (const [path, content] of Object.entries(PLANTED)) m.file(path, content)
			// An MCP server of this machine's own, kept to itself with `cfgsync local` before anything is synced.
			const own = privateServer(spec.name)
			m.file(CLAUDE_JSON, `${JSON.stringify({ numStartups: 0, mcpServers: { [own.name]: own.value } }, null, 2)}\n`)
			const kept = await m.cfgsync(['local', 'claude-code', `~/${CLAUDE_JSON}:mcpServers.${own.name}`])
			if (kept.code !== 0) throw new ModelFailure(`cfgsync local on ${spec.name} failed: ${kept.stderr}`)
			this.machines.push(m)
			this.bases.push({ gemini: new Set(), personal: new Set(), team: new Set() })
			this.edited.push(new Set())
			this.editedKeys.push(new Map())
			this.pending.push(new Set())
			this.conflicted.push(new Map())
			this.lastKilled.push(false)
			this.seenHere.push(new Set())
			this.acceptUnsure.push(new Set())
			if (i === 0) {
				for (const args of [
					['team', 'create', 'Model Team', '--slug', TEAM_SLUG],
					...this.specs
						.filter((s) => s.role === 'member')
						.map((s) => ['team', 'invite', TEAM_SLUG, s.user, '--role', 'member'])
				]) {
					const done = await m.cfgsync(args)
					if (done.code !== 0) throw new ModelFailure(`cfgsync ${args.join(' ')} failed: ${done.stderr}`)
				}
			}
			if (spec.role === 'member') {
				const accepted = await m.cfgsync(['invitations', 'accept', TEAM_SLUG])
				if (accepted.code !== 0) throw new ModelFailure(`invitations accept failed: ${accepted.stderr}`)
			}
		}
		this.teamId = (await api(this.server, 'GET', `/api/teams/${TEAM_SLUG}`, this.users.ada.key)).body.id

		const t = (who: string, path: string, what: string) => this.tokens.make(0, who, path, what)
		const gemini = [
			'{',
			`  // note ${t('A', '.gemini/settings.json', 'comment')}`,
			`  "alpha": "${t('A', '.gemini/settings.json', 'alpha')}",`,
			`  "beta": "${t('A', '.gemini/settings.json', 'beta')}",`,
			'  "ui": {',
			`    "size": "${t('A', '.gemini/settings.json', 'ui.size')}",`,
			`    "mode": "${t('A', '.gemini/settings.json', 'ui.mode')}"`,
			'  }',
			'}',
			''
		]
		this.write(0, GEMINI_SETTINGS, gemini)
		// B has the same settings before its first sync, laid out in 4 spaces: first contact keeps them so.
		const b = this.specs.findIndex((s) => s.name === 'B')
		if (b >= 0)
			this.write(
				b,
				GEMINI_SETTINGS,
				gemini.map((line) => line.replace(/^ +/, (lead) => lead + lead))
			)
		this.write(0, '.gemini/GEMINI.md', [
			'# Gemini notes',
			...[1, 2, 3, 4, 5, 6].map(() => `- ${t('A', '.gemini/GEMINI.md', 'line')}`),
			''
		])
		// The file both personal claude-code configs list and the team's takes over: the same bytes on A and C.
		const shared = [
			'{',
			`  // note ${t('A', SHARED, 'comment')}`,
			`  "theme": "${t('A', SHARED, 'theme')}",`,
			`  "k1": "${t('A', SHARED, 'k1')}",`,
			'  "extra": {',
			`    "a": "${t('A', SHARED, 'extra.a')}"`,
			'  }',
			'}',
			''
		]
		this.write(0, SHARED, shared)
		this.write(0, '.claude/CLAUDE.md', [
			'# Rules',
			...[1, 2, 3, 4, 5, 6].map(() => `- ${t('A', '.claude/CLAUDE.md', 'line')}`),
			''
		])
		this.write(0, '.claude/commands/team-1.md', [
			'# Team command 1',
			...[1, 2, 3, 4, 5, 6].map(() => `- ${t('A', '.claude/commands/team-1.md', 'line')}`),
			''
		])
		const c = this.specs.findIndex((s) => s.role === 'member')
		this.write(c, SHARED, shared)
		this.write(c, '.claude/CLAUDE.md', [
			'# Ben’s rules',
			...[1, 2, 3, 4, 5, 6].map(() => `- ${t('C', '.claude/CLAUDE.md', 'line')}`),
			''
		])

		const a = this.machines[0] as Machine
		const at = (mi: number, path: string) => join((this.machines[mi] as Machine).home, path)
		// A personal config takes in ~/.claude/settings.json before the team does: then the team owns it everywhere.
		const setup: [number, Kind, ConfigId[], string[]][] = [
			[0, 'push', ['personal'], ['push', 'claude-code', at(0, SHARED), at(0, '.claude/CLAUDE.md')]],
			[0, 'push', ['team'], ['push', ...CONFIGS.team.args, at(0, SHARED), join(a.home, '.claude/commands/team-1.md')]],
			[0, 'push', ['gemini'], ['push', 'gemini-cli']]
		]
		for (const [mi, spec] of this.specs.entries()) {
			if (mi === 0) continue
			if (spec.role === 'member') {
				setup.push([mi, 'push', ['personal'], ['push', 'claude-code']])
				setup.push([mi, 'pull', ['team'], ['pull', ...CONFIGS.team.args]])
				continue
			}
			// The team first: a machine that already syncs the team config leaves its file out of the personal one.
			for (const id of ['team', 'personal', 'gemini'] as ConfigId[])
				setup.push([mi, 'pull', [id], ['pull', ...CONFIGS[id].args]])
		}
		for (const [mi, kind, touched, args] of setup) {
			const ran = await this.command(mi, kind, touched, [...args, '--yes', '--json'])
			if (ran.code !== 0)
				throw new ModelFailure(
					`set-up failed: machine ${this.names[mi]}: cfgsync ${args.join(' ')} exited ${ran.code}\n${this.trace.format()}`
				)
		}
		// The model reads acknowledged versions from --json output (docs/client.md): it must say what it pushed.
		for (const id of STORE_IDS)
			if (!this.acked[id].has(1))
				throw new ModelFailure(
					`set-up: the first push of ${id} did not report "pushed": {"version": 1} in its --json output`
				)
		for (const id of STORE_IDS) {
			if (STORES[id].kind !== 'personal') continue
			const held = this.view[id]?.versions.get(1)?.files[SHARED]
			if (held === undefined) throw new ModelFailure(`set-up: ${id}'s first version does not hold ${shown(SHARED)}`)
			this.frozen[id] = held
		}
		await this.check({ settled: false })
		this.failIfViolated('set-up')
	}

	private write(mi: number, path: string, lines: string[]): void {
		;(this.machines[mi] as Machine).file(path, lines.join('\n'))
		this.universe.add(path)
	}

	/** ~/.claude.json's keys other than mcpServers (Claude Code's own state), as JSON; undefined without the file. */
	private toolState(mi: number): string | undefined {
		const text = readText((this.machines[mi] as Machine).home, CLAUDE_JSON)
		const value = text === undefined ? undefined : (parseJsonc(text) as Record<string, unknown> | undefined)
		if (value === undefined || typeof value !== 'object' || value === null) return text
		const { mcpServers: _, ...rest } = value
		return JSON.stringify(rest)
	}

	/**
	 * What Claude Code and its person do to ~/.claude.json: the tool bumps its own counter; the person adds an
	 * MCP server of their own at any place among the others, or removes one they added. Names are per machine,
	 * so no two machines clash: the order they end in is what this checks (docs/sync-model.md, "A sync that
	 * nobody needed changes nothing").
	 */
	private editMcp(mi: number): string {
		const m = this.machines[mi] as Machine
		const name = (this.names[mi] as string).toLowerCase()
		const text = readText(m.home, CLAUDE_JSON)
		const value = (text === undefined ? { numStartups: 0 } : parseJsonc(text)) as Record<string, unknown>
		const servers = (value.mcpServers ?? {}) as Record<string, unknown>
		const entries = Object.entries(servers)
		const own = entries.filter(([key]) => key.startsWith(`mcp-${name}`))
		let what: string
		if (own.length > 0 && this.random.chance(0.25)) {
			const [gone] = this.random.pick(own)
			entries.splice(
				entries.findIndex(([key]) => key === gone),
				1
			)
			what = `remove MCP server ${gone}`
		} else {
			this.mcpCounter += 1
			const key = `mcp-${name}${this.mcpCounter}`
			const at = this.random.int(0, entries.length)
			entries.splice(at, 0, [key, { type: 'http', url: `https://mcp.example/${key}` }])
			what = `add MCP server ${key} at place ${at}`
		}
		const next = { ...value, numStartups: Number(value.numStartups ?? 0) + 1, mcpServers: Object.fromEntries(entries) }
		m.file(CLAUDE_JSON, `${JSON.stringify(next, null, 2)}\n`)
		return what
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

	private remember(mi: number, files: Map<string, string>): void {
		const seen = this.seenHere[mi] as Set<string>
		for (const [path, text] of files) seen.add(`${path}\0${text}`)
	}

	private async spawn(mi: number, args: string[], kill?: Kill): Promise<Ran> {
		const m = this.machines[mi] as Machine
		this.stats.commands += 1
		if (kill === undefined) {
			const started = performance.now()
			const result = await m.cfgsync(args)
			const took = this.durations.get(args[0] as string) ?? []
			took.push(performance.now() - started)
			this.durations.set(args[0] as string, took.slice(-15))
			return { ...result, killed: false }
		}
		const proc = 'at' in kill ? m.start(args, { env: { CFGSYNC_TEST_CRASH_AT: kill.at } }) : m.start(args)
		const out = new Response(proc.stdout as ReadableStream).text()
		const err = new Response(proc.stderr as ReadableStream).text()
		let killed: boolean
		if ('at' in kill) {
			// The client kills itself there, if the run gets that far.
			const ended = await Promise.race([proc.exited.then(() => true), Bun.sleep(60_000).then(() => false)])
			if (!ended) proc.kill('SIGKILL')
			await proc.exited
			killed = proc.signalCode !== null
		} else {
			await Promise.race([proc.exited, Bun.sleep(kill.afterMs)])
			killed = proc.exitCode === null
			if (killed) proc.kill('SIGKILL')
			await proc.exited
		}
		if (killed) this.stats.kills += 1
		return { code: killed ? null : proc.exitCode, stdout: await out, stderr: await err, killed }
	}

	/**
	 * Runs one command and keeps the model's books: versions it says it pushed,
	 * the bases this machine may now have, conflicts it reports (judged against
	 * what both sides held just before), what settling a conflict or a discard
	 * may drop; and checks what the run itself must do: its exit status, that
	 * without --yes it writes none of someone else's changes that need a review,
	 * that a member's sync keeps its changes to the team's files here.
	 */
	async command(
		mi: number,
		kind: Kind,
		touched: ConfigId[],
		args: string[],
		kill?: Kill,
		expect: 'done' | 'refused' = 'done'
	): Promise<Ran> {
		const name = this.names[mi] as string
		// Taking the server's file whole (`resolve --theirs`, `pull --force`) takes its layout too: the person chose
		// the server's bytes, which is no merge (docs/sync-model.md); from then on the file's own layout is kept.
		if (touched.includes('gemini') && (args.includes('--theirs') || (kind === 'pull' && args.includes('--force'))))
			this.layoutShown[mi] = false
		const before = this.localFiles(mi)
		const viewBefore = this.view
		const basesBefore = new Map(touched.map((id) => [id, new Set(this.bases[mi]?.[id])]))
		const yes = args.includes('--yes')
		// What settling a conflict may drop: the losing side's edits in clashing keys or lines, decided before it runs.
		const choice = kind === 'resolve' ? (args.includes('--theirs') ? 'local' : 'remote') : undefined
		const mayDrop = choice ? this.droppableBy(mi, touched, before, viewBefore, basesBefore, choice) : new Set<string>()
		const keep = choice ? this.keptBy(mi, touched, before, viewBefore, basesBefore, choice) : new Map()

		const toolBefore = this.toolState(mi)
		const ran = await this.spawn(mi, args, kill)
		this.trace.command(this.step, name, args, ran, kill && ('at' in kill ? kill.at : kill.afterMs))
		const toolAfter = this.toolState(mi)
		if (toolBefore !== undefined && toolAfter !== toolBefore)
			this.violate(
				`${name}: cfgsync ${args.join(' ')} changed ~/${CLAUDE_JSON}'s own keys (the tool's state, never synced): ${excerpt(toolBefore)} became ${excerpt(toolAfter)}`
			)
		// The next command that runs a config cleans up after a killed one (status and discard read only the state;
		// a member's push to the team is refused before it runs anything).
		if (kind !== 'status' && kind !== 'discard' && expect === 'done') this.lastKilled[mi] = ran.killed
		else if (ran.killed) this.lastKilled[mi] = true
		this.view = await readServer(this.server, this.keys, this.teamId)
		const docs = docsOf(ran.stdout)
		const errors = errorsOf(ran.stderr)
		const bases = this.bases[mi] as Record<ConfigId, Set<number>>
		const latestOf = (view: ServerView, id: ConfigId) => {
			const store = this.storeOf(mi, id)
			return store ? view[store]?.latest : undefined
		}
		const after = this.localFiles(mi)
		const command = `${name}: cfgsync ${args.join(' ')}`
		// Versions the client said it pushed are acknowledged: they must stay readable, unchanged.
		for (const doc of docs) {
			const id = configOfDoc(doc)
			const store = id && this.storeOf(mi, id)
			if (!store || !doc.pushed) continue
			const stored = this.view[store]?.versions.get(doc.pushed.version)
			if (!stored) {
				this.violate(
					`${command} said it pushed version ${doc.pushed.version} of ${store}, which the server does not have`
				)
				continue
			}
			if (!this.acked[store].has(doc.pushed.version))
				this.acked[store].set(doc.pushed.version, {
					raw: stored.raw,
					hash: stored.hash,
					step: this.step,
					machine: name
				})
		}

		if (!ran.killed) this.checkExit(command, kind, ran, docs, errors, yes, expect)
		if (expect === 'refused') {
			for (const path of new Set([...before.keys(), ...after.keys()]))
				if (before.get(path) !== after.get(path))
					this.violate(`${command} was refused, yet it changed ${shown(path)} here`)
			if (viewBefore.team?.latest !== this.view.team?.latest)
				this.violate(
					`${command}: a member's push to the team config was stored (version ${this.view.team?.latest}); only owners and admins push to it`
				)
			this.remember(mi, after)
			return ran
		}

		// Settling a conflict keeps every change that did not clash, from either side, in the file it settles.
		if (choice && !ran.killed && (ran.code === 0 || ran.code === 1)) {
			const held = new Set(docs.flatMap((d) => (d.refused ?? []).map((r) => r.path)))
			for (const [path, tokens] of keep) {
				if (held.has(path)) continue
				const now = tokensIn(after.get(path))
				const gone = [...tokens].filter((token) => !now.has(token))
				if (gone.length > 0)
					this.violate(
						`${command} dropped ${gone.map((t) => `${t} (${this.tokens.born.get(t)?.what}, made on ${this.tokens.born.get(t)?.machine})`).join(', ')} from ${shown(path)}: a change that did not clash, which settling a conflict keeps whichever side is picked\n    here before: ${excerpt(before.get(path))}\n    server (version ${viewBefore[this.storeOf(mi, ownerOf(path) as ConfigId) as StoreId]?.latest}): ${excerpt(this.latestFile(viewBefore, mi, path))}\n    here after: ${excerpt(after.get(path))}`
					)
			}
		}

		if (kind === 'status') {
			for (const path of new Set([...before.keys(), ...after.keys()]))
				if (before.get(path) !== after.get(path))
					this.violate(`${name}: cfgsync status changed ${shown(path)}: a status writes nothing`)
			return ran
		}
		if (touched.includes('team') && kind !== 'discard') {
			const unsure = this.acceptUnsure[mi] as Set<string>
			const key = (path: string) => unsureKey(path, before.get(path), this.latestFile(viewBefore, mi, path))
			if (!yes) this.checkReview(mi, command, before, after, (path) => unsure.has(key(path)))
			if (ran.killed && yes)
				for (const path of new Set([...before.keys(), ...this.universe]))
					if (ownerOf(path) === 'team') unsure.add(key(path))
		}
		if (this.member(mi) && kind === 'sync' && !ran.killed) {
			const team = docs.find((d) => configOfDoc(d) === 'team')
			if ((team?.unsent?.length ?? 0) > 0 && !/stay local/.test(ran.stderr))
				this.violate(
					`${command}: a member's sync kept changes to ${team?.unsent?.map((u) => shown(u.path)).join(', ')} here without saying that they stay local`
				)
		}

		if (kind === 'discard') {
			// The person's choice: the unsent changes to these files go (they are backed up).
			for (const id of touched) {
				const was = [...before].filter(([path]) => ownerOf(path) === id).flatMap(([, text]) => [...tokensIn(text)])
				const now = new Set([...after].filter(([path]) => ownerOf(path) === id).flatMap(([, t]) => [...tokensIn(t)]))
				this.tokens.excuse(minus(new Set(was), now), `dropped by cfgsync discard on ${name} at step ${this.step}`)
			}
			this.remember(mi, after)
			return ran
		}

		for (const id of touched) {
			const store = this.storeOf(mi, id) as StoreId
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
			if ((doc.refused?.length ?? 0) > 0) this.stats.held += 1
			this.conflicted[mi]?.set(id, new Set(conflicts.map((c) => c.path)))
			if (conflicts.length > 0) {
				this.stats.conflicts += 1
				this.pending[mi]?.add(id)
				for (const conflict of conflicts)
					this.judgeConflict(mi, args, id, store, conflict, before, viewBefore, basesBefore)
				if (typeof doc.serverVersion === 'number') possible.add(doc.serverVersion)
			} else {
				this.pending[mi]?.delete(id)
				if (typeof version === 'number') {
					// A run that left files as they were (a push does not write the server's changes, a push of
					// named PATHs looks at no other file, a review held some) moves only the other files' base:
					// the base is then one version for some files and the old one for others.
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
				const synced = this.view[store]?.versions.get(v as number)?.files
				if (synced) {
					for (const path of this.universe)
						if (ownerOf(path) === id && after.get(path) === synced[path]) {
							this.edited[mi]?.delete(path)
							this.editedKeys[mi]?.delete(path)
						}
				}
			}
		}

		if (choice)
			this.tokens.excuse(
				mayDrop,
				`dropped by cfgsync resolve ${args.includes('--theirs') ? '--theirs' : '--mine'} on ${name} at step ${this.step} (the side not picked, in a clashing key or line)`
			)
		this.remember(mi, after)
		return ran
	}

	/**
	 * What a run's exit status may be (docs/client.md, "Exit status"): 0; 3 only
	 * with a conflict reported; 1 only for a member's push to the team, or,
	 * without --yes, when someone else's changes were left for review. With
	 * --yes, nothing in the model is refused: no file is invalid, no value looks
	 * like a secret, the server is always there.
	 */
	private checkExit(
		command: string,
		kind: Kind,
		ran: Ran,
		docs: Doc[],
		errors: { error: string; code?: string }[],
		yes: boolean,
		expect: 'done' | 'refused'
	): void {
		const said = () => (errors[0]?.error ?? ran.stderr.trim()).slice(0, 400)
		if (expect === 'refused') {
			if (ran.code !== 1) this.violate(`${command} exited ${ran.code}, not 1: a member's push to the team is refused`)
			else this.stats.refusedMemberPushes += 1
			return
		}
		const held = docs.some((d) => (d.refused?.length ?? 0) > 0)
		if (ran.code === 0) {
			// Nothing in the model is a link out of home: a file left as it was waits for review, and says so.
			if (held) this.violate(`${command} left files as they were for review, yet exited 0`)
			return
		}
		if (kind === 'status' && (ran.code === 1 || ran.code === 3)) return
		const conflicts = docs.some((d) => (d.conflicts?.length ?? 0) > 0)
		if (ran.code === 3) {
			if (!conflicts) this.violate(`${command} exited 3 but reported no conflict: ${said()}`)
			return
		}
		if (ran.code === 1) {
			const review = errors.some((e) => e.code === 'review_required')
			if (!yes && held && review) return
			this.violate(
				`${command} exited 1${yes ? ' with --yes' : ''}${held ? '' : ', leaving nothing for review'}: ${said()}`
			)
			return
		}
		this.violate(`${command} exited ${ran.code}: ${said()}`)
	}

	/**
	 * Without --yes and without a terminal, a run writes someone else's change
	 * to a team file only when it touches nothing but inert settings (a
	 * command file never is): every other file is left as it was
	 * (docs/sync-model.md, "Reviewing what someone else pushed"). Content this
	 * machine had before — pushed or accepted — is not someone else's, nor is
	 * content a killed run with --yes may have accepted (`unsure`: left unjudged).
	 */
	private checkReview(
		mi: number,
		command: string,
		before: Map<string, string>,
		after: Map<string, string>,
		unsure: (path: string) => boolean
	): void {
		const seen = this.seenHere[mi] as Set<string>
		for (const path of new Set([...before.keys(), ...after.keys()])) {
			if (ownerOf(path) !== 'team' || unsure(path)) continue
			const [was, now] = [before.get(path), after.get(path)]
			if (was === now || (now !== undefined && seen.has(`${path}\0${now}`))) continue
			if (now === undefined || was === undefined || TEAM_FILE.test(path)) {
				this.violate(
					`${command} (no --yes, no terminal) ${now === undefined ? 'deleted' : was === undefined ? 'created' : 'wrote'} ${shown(path)}, someone else's change that needs a review\n    before: ${excerpt(was)}\n    after: ${excerpt(now)}`
				)
				continue
			}
			const [lw, ln] = [leavesOf(was), leavesOf(now)]
			if (!lw || !ln) continue
			const changed = [...new Set([...lw.keys(), ...ln.keys()])].filter((key) => lw.get(key) !== ln.get(key))
			const reviewed = changed.filter((key) => !INERT_KEYS.has(key))
			if (reviewed.length > 0)
				this.violate(
					`${command} (no --yes, no terminal) wrote ${shown(path)} with a change to ${reviewed.join(', ')}, which is not an inert setting: it needs a review\n    before: ${excerpt(was)}\n    after: ${excerpt(now)}`
				)
		}
	}

	/** The edits of the side not picked that `resolve` may drop: in each file of the configs, those in clashing keys or lines. */
	private droppableBy(
		mi: number,
		touched: ConfigId[],
		before: Map<string, string>,
		view: ServerView,
		bases: Map<ConfigId, Set<number>>,
		losing: 'local' | 'remote'
	): Set<string> {
		const found = new Set<string>()
		for (const id of touched) {
			const config = view[this.storeOf(mi, id) as StoreId]
			if (!config) continue
			const remote = config.versions.get(config.latest)?.files ?? {}
			const versions = [...(bases.get(id) ?? [])]
			for (const path of new Set([...before.keys(), ...Object.keys(remote)])) {
				if (ownerOf(path) !== id) continue
				const candidates = versions.map((v) => config.versions.get(v)?.files[path])
				for (const token of droppable(path, candidates, before.get(path), remote[path], losing)) found.add(token)
			}
		}
		return found
	}

	private latestFile(view: ServerView, mi: number, path: string): string | undefined {
		const config = view[this.storeOf(mi, ownerOf(path) as ConfigId) as StoreId]
		return config?.versions.get(config.latest)?.files[path]
	}

	/**
	 * For each file last reported in conflict that certainly still is one, the
	 * edits settling it must keep (judge.ts, mustKeep): a key or line either
	 * side changed, but the losing side's where they clash.
	 */
	private keptBy(
		mi: number,
		touched: ConfigId[],
		before: Map<string, string>,
		view: ServerView,
		bases: Map<ConfigId, Set<number>>,
		losing: 'local' | 'remote'
	): Map<string, Set<string>> {
		const found = new Map<string, Set<string>>()
		for (const id of touched) {
			const config = view[this.storeOf(mi, id) as StoreId]
			const versions = [...(bases.get(id) ?? [])]
			if (!config || versions.length === 0 || versions.some((v) => !config.versions.has(v))) continue
			for (const path of this.conflicted[mi]?.get(id) ?? []) {
				if (ownerOf(path) !== id) continue
				const candidates = versions.map((v) => config.versions.get(v)?.files[path])
				const tokens = mustKeep(path, candidates, before.get(path), this.latestFile(view, mi, path), losing)
				const strict = [...(tokens ?? [])].filter((t) => this.tokens.born.get(t)?.strict)
				if (strict.length > 0) found.set(path, new Set(strict))
			}
		}
		return found
	}

	private judgeConflict(
		mi: number,
		args: string[],
		id: ConfigId,
		store: StoreId,
		conflict: { path: string; why: string },
		before: Map<string, string>,
		viewBefore: ServerView,
		basesBefore: Map<ConfigId, Set<number>>
	): void {
		const path = conflict.path
		const config = viewBefore[store]
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
		await this.quiet()
		this.failIfViolated('the quiet round after settling')
	}

	/**
	 * A sync that nobody needed changes nothing (docs/sync-model.md): once the
	 * machines agree, a sync and a pull of each config on every machine, twice
	 * over, make no new version, name no change and rewrite no file (same bytes,
	 * same modification time).
	 */
	private async quiet(): Promise<void> {
		const latest = () => STORE_IDS.map((id) => `${id} v${this.view[id]?.latest}`).join(', ')
		const stamps = (mi: number) => {
			const m = this.machines[mi] as Machine
			const paths = [...this.localFiles(mi).keys(), ...(m.exists(CLAUDE_JSON) ? [CLAUDE_JSON] : [])]
			return new Map(paths.map((path) => [path, mtimeAndSize(join(m.home, path))]))
		}
		const files = (mi: number) => {
			const all = this.localFiles(mi)
			const text = readText((this.machines[mi] as Machine).home, CLAUDE_JSON)
			if (text !== undefined) all.set(CLAUDE_JSON, text)
			return all
		}
		const agreed = latest()
		const before = this.machines.map((_, mi) => ({ files: files(mi), stamps: stamps(mi) }))
		for (let round = 1; round <= 2; round++)
			for (let mi = 0; mi < this.machines.length; mi++) {
				const runs: [ConfigId[], string[]][] = [
					[this.kindsOf(mi), ['sync', '--yes', '--json']],
					...this.kindsOf(mi).map((id): [ConfigId[], string[]] => [
						[id],
						['pull', ...CONFIGS[id].args, '--yes', '--json']
					])
				]
				for (const [touched, args] of runs) {
					const ran = await this.command(mi, args[0] as Kind, touched, args)
					const changed = docsOf(ran.stdout).flatMap((d) => (d.changes ?? []).map((c) => `${c.path} (${c.action})`))
					if (ran.code !== 0 || changed.length > 0)
						this.violate(
							`${this.names[mi]}: cfgsync ${args.join(' ')} after the machines agreed exited ${ran.code}${changed.length > 0 ? ` and changed ${changed.join(', ')}` : ''}: a sync nobody needed changes nothing`
						)
				}
			}
		if (latest() !== agreed)
			this.violate(`syncs after the machines agreed made new versions: ${agreed} became ${latest()}`)
		for (let mi = 0; mi < this.machines.length; mi++) {
			const now = { files: files(mi), stamps: stamps(mi) }
			const was = before[mi] as typeof now
			for (const path of new Set([...was.files.keys(), ...now.files.keys()]))
				if (was.files.get(path) !== now.files.get(path) || was.stamps.get(path) !== now.stamps.get(path))
					this.violate(
						`${this.names[mi]}: ${shown(path)} was rewritten by syncs after the machines agreed\n    before: ${excerpt(was.files.get(path))}\n    after: ${excerpt(now.files.get(path))}`
					)
		}
	}

	/** --yes, or (35% of the time) none: without a terminal, someone else's changes that need a review are then held. */
	private yes(without = 0.35): string[] {
		return this.random.chance(without) ? [] : ['--yes']
	}

	private async takeStep(): Promise<void> {
		const r = this.random
		const mi = r.int(0, this.machines.length - 1)
		const kinds = this.kindsOf(mi)
		const resolvable = [...(this.pending[mi] ?? [])]
		if (resolvable.length > 0 && r.chance(0.5)) return this.resolve(mi, resolvable, r.chance(0.35))
		const kind = r.weighted({ edit: 45, command: 42, kill: 13 })
		if (kind === 'edit') return this.edit(mi)
		const which = r.weighted(
			kind === 'kill'
				? { sync: 4, push: 3, pull: 3, status: 0, syncTool: 0, discard: 0 }
				: { sync: 30, syncTool: 10, push: 25, pull: 25, status: 5, discard: 3 }
		)
		const kill = kind === 'kill' ? this.killAt(which === 'syncTool' ? 'sync' : which) : undefined
		if (which === 'sync') {
			await this.command(mi, 'sync', kinds, ['sync', ...this.yes(), '--json'], kill)
		} else if (which === 'syncTool') {
			const tool = r.pick(
				kinds.includes('gemini') ? (['gemini-cli', 'claude-code'] as const) : (['claude-code'] as const)
			)
			const touched = kinds.filter((id) => CONFIGS[id].tool === tool)
			await this.command(mi, 'sync', touched, ['sync', tool, ...this.yes(), '--json'], kill)
		} else if (which === 'status') {
			await this.command(mi, 'status', kinds, ['status', '--json'])
		} else if (which === 'discard') {
			const id = r.pick(kinds)
			await this.command(mi, 'discard', [id], ['discard', ...CONFIGS[id].args, '--yes', '--json'])
		} else {
			const id = r.pick(kinds)
			if (which === 'push' && id === 'team' && this.member(mi)) return this.memberPush(mi)
			const yes = which === 'pull' ? this.yes() : ['--yes']
			await this.command(mi, which, [id], [which, ...CONFIGS[id].args, ...yes, '--json'], kill)
		}
	}

	/**
	 * How to stop a command: half of the time (a resolve: 70%) at one of the
	 * client's crash points (after a file is written, with a temporary copy in
	 * place, after the server stored a push); otherwise at a moment of 0–150 ms, or of its
	 * usual run time on this machine when that is longer (a loaded machine
	 * starts it slower), half of those in its last 40%, where it writes files
	 * and state.
	 */
	private killAt(command: string): Kill {
		// A resolve writes files and its state, never pushes: most of its kills go where that happens.
		if (this.random.chance(command === 'resolve' ? 0.7 : 0.5)) {
			const points = command === 'resolve' ? ['write:1', 'temporary:1', 'write:2', 'temporary:2'] : CRASH_POINTS
			return { at: this.random.pick(points) }
		}
		const [anywhere, late, u] = [this.random.chance(0.5), this.random.next(), this.random.next()]
		const took = [...(this.durations.get(command) ?? [])].sort((a, b) => a - b)
		const usual = took.length > 0 ? (took[Math.floor(took.length / 2)] as number) : 150
		if (anywhere) return { afterMs: Math.round(u * Math.max(150, usual * 1.1)) }
		return { afterMs: Math.round(usual * (0.6 + 0.4 * late)) }
	}

	private async resolve(mi: number, pending: ConfigId[], killed = false): Promise<void> {
		const id = this.random.pick(pending.sort())
		const side = this.random.pick(['--mine', '--theirs'])
		const yes = this.yes(0.15)
		this.stats.resolves += 1
		await this.command(
			mi,
			'resolve',
			[id],
			['resolve', ...CONFIGS[id].args, side, ...yes, '--json'],
			killed ? this.killAt('resolve') : undefined
		)
	}

	/** A member tries to push to the team config (all of it, or a file of it): refused, nothing sent or changed. */
	private async memberPush(mi: number): Promise<void> {
		const m = this.machines[mi] as Machine
		const files = [...this.localFiles(mi, 'team').keys()]
		const named = files.length > 0 && this.random.chance(0.5) ? [join(m.home, this.random.pick(files))] : []
		await this.command(
			mi,
			'push',
			['team'],
			['push', ...CONFIGS.team.args, ...named, '--yes', '--json'],
			undefined,
			'refused'
		)
	}

	private async edit(mi: number): Promise<void> {
		const r = this.random
		const m = this.machines[mi] as Machine
		const name = this.names[mi] as string
		const gemini = this.storeOf(mi, 'gemini') !== undefined
		const kind = r.weighted({
			geminiKey: gemini ? 14 : 0,
			geminiComment: gemini ? 8 : 0,
			claudeKey: 10,
			claudeComment: 4,
			text: 30,
			create: 6,
			remove: 4,
			teamFile: this.member(mi) ? 0 : 2,
			mcp: 6
		})
		const note = (action: string) => this.trace.add({ step: this.step, machine: name, action })
		if (kind === 'mcp') return note(`edit ~/${CLAUDE_JSON}: ${this.editMcp(mi)}`)
		const change = (path: string, next: string | undefined, what: string, key?: string) => {
			if (key !== undefined) {
				const keys = this.editedKeys[mi] as Map<string, Set<string>>
				keys.set(path, new Set([...(keys.get(path) ?? []), key]))
			}
			const old = readText(m.home, path)
			if (next === undefined) rmSync(join(m.home, path), { force: true })
			else {
				m.file(path, next)
				this.seenHere[mi]?.add(`${path}\0${next}`)
			}
			this.universe.add(path)
			this.edited[mi]?.add(path)
			this.tokens.excuse(
				minus(tokensIn(old), tokensIn(next)),
				`changed by the person on ${name} at step ${this.step} (${what})`
			)
			note(`edit ${shown(path)}: ${what}`)
		}
		const token = (path: string, what: string) => () => this.tokens.make(this.step, name, path, what)
		// A new file has lines enough for changes on two machines to fall apart from each other, or to touch.
		const lines = (t: () => string) => [1, 2, 3, 4, 5].map(() => `- ${t()}\n`).join('')

		// A person often changes a file in several places at once: then a clash in one of them leaves the others,
		// which settling the conflict must keep, whichever side is picked.
		const times = r.weighted({ one: 5, two: 3, three: 2 })
		const repeat = times === 'one' ? 1 : times === 'two' ? 2 : 3
		if (kind === 'geminiKey' || kind === 'claudeKey' || kind === 'geminiComment' || kind === 'claudeComment') {
			const path = kind.startsWith('gemini') ? '.gemini/settings.json' : SHARED
			for (let i = 0; i < repeat; i++) {
				const text = readText(m.home, path)
				if (text === undefined) return note(`(no ${shown(path)} here: nothing to edit)`)
				const edited = kind.endsWith('Key')
					? editKey(
							text,
							path,
							r,
							token(path, 'key'),
							this.layoutShown[mi] === false ? unitOf(text) : indentOf(name, path)
						)
					: editComment(text, r, token(path, 'comment'))
				if (!edited) {
					this.violate(`${name}: ${shown(path)} does not parse as JSON with comments: ${excerpt(text)}`)
					return
				}
				change(path, edited.text, edited.what, edited.key)
			}
			return
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
			for (let i = 0; i < repeat; i++) {
				const edited = editLine(readText(m.home, path) as string, r, token(path, 'line'))
				change(path, edited.text, edited.what)
			}
			return
		}
		if (kind === 'create') {
			this.ownCounter += 1
			const path = `.claude/commands/own-${name.toLowerCase()}${this.ownCounter}.md`
			const t = token(path, 'line')
			return change(path, `# My command ${this.ownCounter}\n${lines(t)}`, 'create the file')
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
		change(path, `# Team command ${this.teamCounter}\n${lines(t)}`, 'create the file for the team')
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

	/**
	 * Every machine syncs, settling any conflict, until a whole round changes
	 * nothing; a member, whose changes to the team's files stay on the machine,
	 * discards them (the person's choice) so that every machine can end equal.
	 */
	private async settle(): Promise<void> {
		for (let round = 1; round <= 8; round++) {
			let quiet = true
			const latest = STORE_IDS.map((id) => this.view[id]?.latest)
			for (let mi = 0; mi < this.machines.length; mi++) {
				const kinds = this.kindsOf(mi)
				const ran = await this.command(mi, 'sync', kinds, ['sync', '--yes', '--json'])
				if (ran.code !== 0) quiet = false
				if (docsOf(ran.stdout).some((d) => (d.changes?.length ?? 0) > 0)) quiet = false
				for (const id of [...(this.pending[mi] as Set<ConfigId>)].sort()) {
					quiet = false
					const side = this.random.pick(['--mine', '--theirs'])
					this.stats.resolves += 1
					await this.command(mi, 'resolve', [id], ['resolve', ...CONFIGS[id].args, side, '--yes', '--json'])
				}
				if (this.member(mi)) {
					const dropped = await this.command(
						mi,
						'discard',
						['team'],
						['discard', ...CONFIGS.team.args, '--yes', '--json']
					)
					if (docsOf(dropped.stdout).some((d) => (d.discarded?.length ?? 0) > 0)) quiet = false
				}
			}
			if (STORE_IDS.some((id, i) => this.view[id]?.latest !== latest[i])) quiet = false
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
			`model test failed at ${where} (seed ${this.seed}; replay: CFGSYNC_MODEL_SEED=${this.seed} CFGSYNC_MODEL_STEPS=${Math.max(this.step, 1)}):\n${list}\n\nmachines: ${this.specs.map((s) => `${s.name} (${s.user}, team ${s.role})`).join(', ')}\nlast steps (CFGSYNC_MODEL_TRACE=N shows N):\n${this.trace.format(Number(process.env.CFGSYNC_MODEL_TRACE ?? 30))}`
		)
	}

	/** Every invariant, on the server's versions and every machine's home. */
	async check({ settled }: { settled: boolean }): Promise<void> {
		if (Object.keys(this.view).length === 0) this.view = await readServer(this.server, this.keys, this.teamId)
		const view = this.view
		/** Where an edit may still be: strict ones on a machine or in a latest version, any one also in history or a backup. */
		const current = new Set<string>()
		const anywhere = new Set<string>()
		const add = (into: Set<string>[], text: string | undefined) => {
			for (const token of tokensIn(text)) for (const set of into) set.add(token)
		}
		const born = (token: string) => this.tokens.born.get(token)?.machine

		// 1. An acknowledged version never changes or disappears.
		for (const id of STORE_IDS) {
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
			const config = view[id]
			for (const stored of config?.versions.values() ?? [])
				add(stored.version === config?.latest ? [current, anywhere] : [anywhere], stored.raw)
		}

		// 7. A key a machine keeps to itself (`cfgsync local`) never reaches the server, in any config or version.
		for (const id of STORE_IDS)
			for (const [version, stored] of view[id]?.versions ?? [])
				for (const spec of this.specs)
					if (stored.raw.includes(privateServer(spec.name).value.url))
						this.violate(
							`${id}'s version ${version} holds ${spec.name}'s own MCP server, a key that machine keeps to itself (cfgsync local)`
						)

		// 6. One file, one owner; a config holds only its tool's files (and none the model never made); edits
		// cross no line between people: a member's never reach the team config, nobody's reach another's own.
		for (const id of STORE_IDS) {
			const { kind, user } = STORES[id]
			for (const [version, stored] of view[id]?.versions ?? []) {
				for (const [path, content] of Object.entries(stored.files)) {
					const owner = ownerOf(path)
					if (kind === 'personal' && path === CLAUDE_PART) continue
					if (kind === 'personal' && path === SHARED) {
						if (this.frozen[id] !== undefined && content !== this.frozen[id])
							this.violate(
								`${id}'s version ${version} changed ${shown(path)}, which the team config holds: a personal config never takes in a team file (it holds ${excerpt(content)}, was ${excerpt(this.frozen[id])})`
							)
						continue
					}
					if (kind === 'team' && owner === 'personal')
						this.violate(`the team config's version ${version} holds ${shown(path)}, a personal file`)
					else if (kind === 'personal' && owner === 'team')
						this.violate(`${id}'s version ${version} took in ${shown(path)}, which the team config holds`)
					else if (owner !== kind || !this.universe.has(path))
						this.violate(`${id}'s version ${version} holds ${shown(path)}, which is no file of that config`)
					const foreign = [...tokensIn(content)].filter((token) => {
						const machine = born(token)
						if (machine === undefined) return false
						const from = this.specs.find((s) => s.name === machine)
						return kind === 'team' ? from?.role === 'member' : from?.user !== user
					})
					if (foreign.length > 0)
						this.violate(
							`${id}'s version ${version} holds ${foreign.slice(0, 3).join(', ')} in ${shown(path)}, made on ${born(foreign[0] as string)}: ${kind === 'team' ? "a member's changes to the team's files stay on their machine" : "no one's edits reach another person's config"}`
						)
				}
			}
		}

		for (let mi = 0; mi < this.machines.length; mi++) {
			const m = this.machines[mi] as Machine
			const name = this.names[mi] as string
			// 7. ...and it stays on its machine as it was, whatever was pulled or merged.
			const own = privateServer(name)
			const servers = (parseJsonc(readText(m.home, CLAUDE_JSON) ?? '') as { mcpServers?: Record<string, unknown> })
				?.mcpServers
			if (JSON.stringify(servers?.[own.name]) !== JSON.stringify(own.value))
				this.violate(
					`${name}: ~/${CLAUDE_JSON}'s own MCP server ${own.name} (kept here with cfgsync local) is ${excerpt(JSON.stringify(servers?.[own.name]))}`
				)
			// 8. Each machine keeps its formatting: a file laid out in 4 spaces here stays so through every merge.
			// Once the file holds no indented line (every key removed: `{\n}`), it shows no layout to keep.
			const gemini = readText(m.home, GEMINI_SETTINGS)
			if (gemini !== undefined && !/\n[ \t]+\S/.test(gemini)) this.layoutShown[mi] = false
			const unit = this.layoutShown[mi] === false ? unitOf(gemini) : indentOf(name, GEMINI_SETTINGS)
			const off = gemini === undefined ? [] : offIndent(gemini, unit)
			if (off.length > 0)
				this.violate(
					`${name}: ${shown(GEMINI_SETTINGS)} is laid out in ${unit} spaces a level here, but now holds ${excerpt(off.slice(0, 3).join('\n'))}: a merge writes in this machine's formatting`
				)
			// 5. Nothing outside the tools' files is written.
			for (const [path, content] of Object.entries(PLANTED))
				if (readText(m.home, path) !== content)
					this.violate(`${name}: ${shown(path)} changed; it is nobody's tool file`)
			// 4. No stray files; temporary files only until the next command after a kill.
			for (const path of walk(m.home)) {
				if (PLANTED[path] !== undefined || path === CLAUDE_JSON) continue
				const own = OWN_DIRS.some((dir) => path.startsWith(dir))
				if (isTemporary(path)) {
					if (settled || !this.lastKilled[mi])
						this.violate(
							`${name}: temporary file ${shown(path)} left behind${settled ? ' after the settling round' : ' after a command that ran to its end'}`
						)
					continue
				}
				if (own) continue
				const kind = ownerOf(path)
				if (!this.universe.has(path) || kind === undefined || this.storeOf(mi, kind) === undefined)
					this.violate(`${name}: stray file ${shown(path)}`)
				else {
					const text = readText(m.home, path)
					add([current, anywhere], text)
					if (isJson(path) && text !== undefined && parseJsonc(text) === undefined)
						this.violate(`${name}: ${shown(path)} does not parse any more: ${excerpt(text)}`)
				}
			}
			// A backup keeps a comment (formatting a merge may drop), never a key or a line: those must stay live.
			for (const rel of walk(join(m.home, BACKUPS))) {
				const full = join(m.home, BACKUPS, rel)
				const stamp = mtimeAndSize(full)
				let cached = this.backupTokens.get(full)
				if (!cached || cached.stamp !== stamp) {
					cached = { stamp, tokens: tokensIn(readFileSync(full, 'utf8')) }
					this.backupTokens.set(full, cached)
				}
				for (const token of cached.tokens) anywhere.add(token)
			}
		}

		// 2. No edit vanishes unless the person replaced it or chose the other side of a clash.
		const lost = this.tokens.live().filter((birth) => !(birth.strict ? current : anywhere).has(birth.token))
		for (const birth of lost.slice(0, 5)) {
			const where = birth.strict
				? 'on no machine and in no config’s latest version (an old version or a backup does not count)'
				: 'on no machine, in no version on the server, in no backup'
			this.violate(
				`the edit ${birth.token} (${birth.what} in ${shown(birth.path)}, made on ${birth.machine} at step ${birth.step}) is gone: ${where}, and nobody replaced it or chose the other side of a clash`
			)
		}
		if (lost.length > 5) this.violate(`and ${lost.length - 5} more edits are gone the same way`)

		// 3. After settling: every machine holds exactly the latest files of the configs it syncs, byte for byte.
		if (settled) {
			for (let mi = 0; mi < this.machines.length; mi++) {
				const m = this.machines[mi] as Machine
				const name = this.names[mi] as string
				const expected = new Map<string, string>()
				for (const id of this.kindsOf(mi)) {
					const config = view[this.storeOf(mi, id) as StoreId]
					for (const [path, content] of Object.entries(config?.versions.get(config.latest)?.files ?? {}))
						if (ownerOf(path) === id) expected.set(path, content)
				}
				if ((this.pending[mi]?.size ?? 0) > 0)
					this.violate(`${name}: still in conflict after settling: ${[...(this.pending[mi] ?? [])].join(', ')}`)
				const here = new Set(TOOL_DIRS.flatMap((dir) => walk(join(m.home, dir), dir)).filter((p) => !isTemporary(p)))
				for (const [path, content] of expected) {
					const bytes = m.bytes(path)
					if (!bytes) this.violate(`${name}: ${shown(path)} is on the server but not here after settling`)
					else if (
						path === GEMINI_SETTINGS
							? layoutAside(bytes.toString('utf8')) !== layoutAside(content)
							: !bytes.equals(Buffer.from(content, 'utf8'))
					)
						this.violate(
							`${name}: ${shown(path)} differs from the server's latest after settling: here ${excerpt(bytes.toString('utf8'))}, server ${excerpt(content)}`
						)
				}
				for (const path of here)
					if (!expected.has(path))
						this.violate(`${name}: ${shown(path)} is here but in no config it syncs after settling`)
				// The synced part of ~/.claude.json: the server's servers, in the server's order.
				const personal = view[this.storeOf(mi, 'personal') as StoreId]
				const part = personal?.versions.get(personal.latest)?.files[CLAUDE_PART]
				const text = readText(m.home, CLAUDE_JSON)
				const { [privateServer(name).name]: _, ...servers } =
					(parseJsonc(text ?? '') as { mcpServers?: Record<string, unknown> } | undefined)?.mcpServers ?? {}
				const wanted = part === undefined ? undefined : (parseJsonc(part) as { mcpServers?: unknown }).mcpServers
				if (JSON.stringify(servers) !== JSON.stringify(wanted ?? {}))
					this.violate(
						`${name}: ~/${CLAUDE_JSON}'s mcpServers differ from the server's latest after settling (order counts): here ${excerpt(JSON.stringify(servers))}, server ${excerpt(JSON.stringify(wanted))}`
					)
			}
		}
	}

	summary(steps: number): Summary {
		return {
			seed: this.seed,
			steps,
			...this.stats,
			versions: STORE_IDS.reduce((n, id) => n + (this.view[id]?.versions.size ?? 0), 0)
		}
	}
}
