import { DEFAULT_CONFIG_NAME } from '../../shared/constants'
import { confirm } from '../ask'
import { type Session, tool as toolArg } from '../context'
import { applyWrites, refusedWrites } from '../files'
import { fileHash } from '../hash'
import { withLock } from '../lock'
import { CliFailure, EXIT, safe } from '../output'
import { capped, fileList, pathArgs } from '../report'
import { fetchRemote, type Remote, resolveTarget, type Target, targetOf } from '../run'
import { allStates, backupRoot } from '../state'
import { ownValue, type Write } from '../sync/engine'
import { keptAlone, keptHere } from '../sync/local-keys'
import { shown } from '../tools'
import { type LocalChange, localChanges } from '../unsent'
import { defineCommand, type Input, PATHS, TARGET, TOOL, YES } from './command'
import { toolPathKeys } from './common'

export const DISCARD_HELP = `cfgsync discard TOOL [-n|--name N] [--team SLUG] [-y|--yes] [PATH...]

Drops this machine's unsent changes to a config's files (all of them, or the
PATHs'): each file changed, added or deleted here since the last sync goes
back to the version last synced on this machine. A file that was never
synced here is deleted. Every file is first copied to
$XDG_STATE_HOME/cfgsync/backups/<time>/. Asks first (y/N) on a terminal;
without one it needs --yes. Nothing is sent and the server is not asked, so
it works offline; a pull afterwards takes what changed on the server.`

const options = { ...TARGET, ...YES } as const

/** The config named, found among those this machine syncs first, so discard works without the server. */
async function targetFor(s: Session, tool: Target['tool'], values: { name?: string; team?: string }): Promise<Target> {
	const name = values.name ?? DEFAULT_CONFIG_NAME
	const synced = allStates(s.server, await s.username()).find(
		(state) =>
			state.tool === tool &&
			state.name === name &&
			(values.team === undefined
				? state.teamId === undefined
				: state.team === values.team || state.teamId === values.team)
	)
	return synced ? targetOf(s, synced) : resolveTarget(s, tool, values)
}

type Action = 'reverted' | 'restored' | 'deleted'
const actionOf = (c: LocalChange): Action =>
	c.base === undefined ? 'deleted' : c.local === undefined ? 'restored' : 'reverted'
/** Listed before the question, so they say what discarding does, not that it is done. */
const WORDS: Record<Action, string> = {
	reverted: 'changed here: goes back to the synced version',
	restored: 'deleted here: comes back as synced',
	deleted: 'never synced: to be deleted'
}

async function run({ values, positionals, io, out, session }: Input<typeof options>) {
	const tool = toolArg(positionals[0], 'discard')
	const named = positionals.length > 1 ? toolPathKeys(out, tool, positionals.slice(1), 'discard') : undefined
	const s = session(values)
	const t = await targetFor(s, tool, values)
	const { state, changes } = await localChanges(s, t, named)
	if (!state)
		throw new CliFailure(
			`This machine does not sync ${t.label}, so it has no synced version to go back to. To take the server's: cfgsync pull ${tool}${t.args} --force`
		)
	if (changes.length === 0) {
		if (values.json) return out.json({ config: configOf(t), discarded: [], refused: [], backups: null })
		return out.say(`No unsent changes in ${t.label}${named ? ' to those files' : ''}: nothing to discard.`)
	}
	// The synced version of each file: the base's content, or (state from an older client, hashes only) the server's
	// copy when the server still holds the version last synced here.
	let remote: Remote | undefined
	if (changes.some((c) => c.base !== undefined && c.base.content === undefined)) {
		const found = await fetchRemote(s, t)
		remote = found === 'unchanged' ? undefined : found
	}
	const writes: Write[] = []
	const missing: string[] = []
	for (const c of changes) {
		let content: string | null = null
		if (c.base !== undefined) {
			const fromServer = ownValue(remote?.files, c.key)
			const synced =
				c.base.content ?? (fromServer !== undefined && fileHash(fromServer) === c.base.hash ? fromServer : undefined)
			if (synced === undefined) {
				missing.push(c.key)
				continue
			}
			content = synced
		}
		// Keys that stay on this machine keep their value here (docs/sync-model.md): a file never synced that holds
		// some keeps them alone rather than going away with them.
		if (c.kept) content = content === null ? keptAlone(c.key, c.here, c.kept) : keptHere(c.key, content, c.here, c.kept)
		writes.push({
			key: c.key,
			content,
			kind: content === null ? 'deleted' : 'updated',
			before: c.kept ? c.here : c.local
		})
	}
	if (missing.length > 0)
		throw new CliFailure(
			`The synced version of ${fileList(missing)} is not kept on this machine (its state was written by an older cfgsync) and the server no longer has it; nothing was changed. To take the server's version instead: cfgsync pull ${tool}${t.args} --force${pathArgs(missing)}`
		)
	const refused = refusedWrites(writes)
	const doing = writes.filter((w) => !refused.has(w.key))
	const kept = changes.filter((c) => !refused.has(c.key))
	if (!values.json) capped(out, kept, (c) => `  ${out.red('<')} ${safe(shown(c.key))} (${WORDS[actionOf(c)]})`, 'files')
	await confirm(
		`Drop this machine's unsent changes to ${doing.length} file${doing.length === 1 ? '' : 's'} of ${t.label} (each is backed up first)?`,
		`cfgsync discard ${tool}${t.args}${named ? pathArgs(named) : ''}`,
		values.yes,
		io
	)
	const root = backupRoot(t.key)
	const backedUp = await withLock('discard', async () => applyWrites(doing, root).backedUp, io.stderr)
	const backups = backedUp > 0 ? root : null
	if (values.json) {
		out.json({
			config: configOf(t),
			discarded: kept.map((c) => ({ path: c.key, file: shown(c.key), action: actionOf(c) })),
			refused: [...refused].map(([key, why]) => ({ path: key, file: shown(key), why })),
			backups
		})
	} else {
		out.say(
			`${out.green('Discarded')} this machine's unsent changes to ${kept.length} file${kept.length === 1 ? '' : 's'} of ${t.label}; they are as last synced here (version ${state.version}).${backups ? out.dim(` The previous files are in ${backups}`) : ''}`
		)
	}
	if (refused.size > 0)
		throw new CliFailure(
			`${fileList([...refused.keys()])} left as ${refused.size === 1 ? 'it is' : 'they are'}: a symbolic link out of your home directory. Replace the link with a file, or point it inside home, then run: cfgsync discard ${tool}${t.args}${pathArgs([...refused.keys()])}`,
			EXIT.error
		)
}

const configOf = (t: Target) => ({ tool: t.tool, name: t.name, team: t.team ?? t.teamId ?? null })

export const discard = defineCommand({
	name: 'discard',
	group: 'Sync',
	summary: "drop this machine's unsent changes",
	usage: ['discard TOOL [PATH...]'],
	help: DISCARD_HELP,
	args: [TOOL, PATHS],
	options,
	run
})
