import { join } from 'node:path'
import type { ConfigVersion } from '../api'
import type { Tool } from '../../shared/constants'
import { type Session, tool as toolArg } from '../context'
import { CliFailure, EXIT, type Printer, safe } from '../output'
import { outcomeFailure, printLines, reportJson } from '../report'
import { teamsFirst } from '../ownership'
import { home } from '../paths'
import { type Report, resolveTarget, type Target, targetOf } from '../run'
import { withTeamSlug } from '../target'
import { DIR_MARK, isToolPath, localDir, toolFilesText } from '../scope'
import { allStates } from '../state'
import { homeRelative, shown } from '../tools'

/** What the sync and config commands share: PATH arguments, printing a run, the configs a command covers, version numbers. */

/** Keys for PATH arguments (a directory's marked with a final `/`); a path outside home cannot be synced. */
export function pathKeys(paths: string[]): string[] {
	return paths.map((path) => {
		// A `~/…` that reached us unexpanded (quoted, or pasted from a message) means the home directory too.
		const key = homeRelative(/^~($|\/)/.test(path) ? join(home(), path.slice(1)) : path)
		if (key === undefined)
			throw new CliFailure(`${path} is not inside your home directory; only files under home are synced`, EXIT.usage)
		return localDir(key) ? `${key}${DIR_MARK}` : key
	})
}

/**
 * PATH arguments of one tool's config as keys: a config holds only its tool's
 * files (docs/sync-model.md), so a PATH that is none of them is named in a
 * warning and left out, and when no PATH is left nothing is done (exit 2).
 */
export function toolPathKeys(out: Printer, tool: Tool, paths: string[], command: string): string[] {
	const keys = pathKeys(paths)
	const kept = keys.filter((key) => isToolPath(tool, key))
	const foreign = keys.filter((key) => !isToolPath(tool, key)).map((key) => safe(shown(key.replace(/\/$/, ''))))
	if (foreign.length === 0) return kept
	const why = `not ${foreign.length === 1 ? 'a ' : ''}${tool} file${foreign.length === 1 ? '' : 's'}: a ${tool} config holds only ${toolFilesText(tool)}`
	if (kept.length === 0)
		throw new CliFailure(
			`${foreign.join(', ')}: ${why}. Nothing was done: name the tool's own files, or none to ${command} all of them.`,
			EXIT.usage
		)
	out.warn(`Left out ${foreign.join(', ')}: ${why}.`)
	return kept
}

/** Prints a run (lines, or JSON) and throws its failure: exit 3 for a conflict. */
export function finish(
	out: Printer,
	report: Report,
	asJson: boolean | undefined,
	text: () => void,
	rerun?: string
): void {
	if (asJson) out.json(reportJson(report))
	else {
		printLines(out, report)
		text()
	}
	const problem = outcomeFailure(report, rerun)
	if (problem) throw problem
}

/** The configs a command covers: those this machine syncs, or the one named. */
export async function targetsFor(
	s: Session,
	command: string,
	positionals: string[],
	values: { name?: string; team?: string }
): Promise<Target[]> {
	// Several tools (sync codex gemini-cli): the configs of each, once.
	if (positionals.length > 1) {
		const all = new Map<string, Target>()
		for (const word of positionals)
			for (const t of await targetsFor(s, command, [word], values)) if (!all.has(t.key)) all.set(t.key, t)
		return [...all.values()]
	}
	if (positionals[0] !== undefined && !values.name && !values.team) {
		const tool = toolArg(positionals[0], command)
		const synced = allStates(s.server, await s.username()).filter((state) => state.tool === tool)
		return synced.length > 0
			? teamsFirst(
					await currentSlugs(
						s,
						synced.map((state) => targetOf(s, state))
					)
				)
			: [await resolveTarget(s, tool, values)]
	}
	if (positionals[0] !== undefined) return [await resolveTarget(s, toolArg(positionals[0], command), values)]
	if (values.name || values.team)
		throw new CliFailure(`--name and --team need a TOOL: cfgsync ${command} TOOL --name N --team SLUG`, EXIT.usage)
	// Team configs first: what they hold on this machine is left out of the personal ones (docs/sync-model.md).
	return teamsFirst(
		await currentSlugs(
			s,
			allStates(s.server, await s.username()).map((state) => targetOf(s, state))
		)
	)
}

/**
 * Team configs under their teams' current slugs: the client follows a team by
 * id, so one renamed elsewhere is named (and its commands suggested) by its
 * new slug. Offline, or when the server cannot say, the slugs last seen stay.
 */
async function currentSlugs(s: Session, targets: Target[]): Promise<Target[]> {
	if (!targets.some((t) => t.teamId !== undefined)) return targets
	let slugs: Map<string, string>
	try {
		slugs = new Map((await s.run((api) => api.teams.list())).map((team) => [team.id, team.slug]))
	} catch {
		return targets
	}
	return targets.map((t) => {
		const slug = t.teamId === undefined ? undefined : slugs.get(t.teamId)
		return slug === undefined ? t : withTeamSlug(t, slug)
	})
}

/** One version by number: versions below V+1, at most one. */
export async function versionByNumber(s: Session, configId: string, number: number, t: Target): Promise<ConfigVersion> {
	const found = (await s.run((api) => api.configs.versions(configId, { limit: 1, before: number + 1 })))[0]
	if (!found || found.version !== number) throw new CliFailure(`${t.label} has no version ${number}`)
	if (found.unreadable)
		throw new CliFailure(
			`version ${number} of ${t.label} cannot be decrypted on the server (its record is damaged or was sealed under another master key; the server's log names it): choose another version`
		)
	return found
}

export function asNumber(value: string | undefined, flag: string): number | undefined {
	if (value === undefined) return undefined
	const number = Number(value)
	if (!Number.isInteger(number) || number < 1)
		throw new CliFailure(`${flag} takes a version number (1, 2, …)`, EXIT.usage)
	return number
}
