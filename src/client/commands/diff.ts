import { createTwoFilesPatch } from 'diff'
import { type Session, tool as toolArg } from '../context'
import { asFileSet, readLocal } from '../files'
import { CliFailure, EXIT, type Printer, safe } from '../output'
import { page } from '../pager'
import { platform } from '../paths'
import { resolveTarget, type Target } from '../run'
import { configScope } from '../ownership'
import { getState } from '../state'
import { keptFor } from '../local-keys'
import { type Files, ownValue } from '../sync/engine'
import { EVERYWHERE_FILE, type Kept, masked } from '../sync/local-keys'
import { neutralFiles } from '../sync/paths'
import { localKey, shown } from '../tools'
import { defineCommand, type Input, PATHS, TARGET, TOOL } from './command'
import { asNumber, pathKeys, versionByNumber } from './common'

export const DIFF_HELP = `cfgsync diff TOOL [-n|--name N] [--team SLUG] [--version V] [--from A] [--exit-code] [--no-pager] [PATH...]

A unified diff of the server's current version (or version V) against the
files here. With --from A, between the server's versions A and V (or
current). Invisible differences show: a BOM as \\u{feff}, a CR as \\r.
--exit-code: exit 1 when there are differences. On a terminal, a diff longer
than the screen goes through a pager (CFGSYNC_PAGER, PAGER, else less);
--no-pager prints it directly.`

const filesOf = (data: unknown, what: string): Record<string, string> => {
	const set = asFileSet(data)
	if (!set) throw new CliFailure(`${what} is not a set of files`)
	return neutralFiles(set.files, platform()).files
}

const options = {
	...TARGET,
	version: { type: 'string' },
	from: { type: 'string' },
	'exit-code': { type: 'boolean' },
	'no-pager': { type: 'boolean' }
} as const

/** The two sides a diff compares, and their names in its headers. */
interface Compared {
	before: Record<string, string>
	after: Record<string, string>
	labels: [string, string]
}

/**
 * The files here against the server's: the files this config syncs here
 * (not those a team config of the tool owns on this machine), and keys that
 * stay on this machine shown as the server has them (docs/sync-model.md).
 */
async function againstHere(
	s: Session,
	t: Target,
	newer: Files,
	named: string[] | undefined
): Promise<{ before: Files; after: Files }> {
	const state = getState(t.key)
	const scope = await configScope(s, t, { named, base: state?.files, remote: newer })
	const keys = named
		? scope.keys
		: [
				...new Set([
					...scope.keys,
					...Object.keys(newer).filter(
						(key) => !scope.excluded.some((dir) => key.startsWith(`${dir}/`)) && !scope.elsewhere.includes(key)
					)
				])
			]
	const before = Object.fromEntries(
		Object.entries(newer).filter(([key]) => keys.includes(key) && key !== EVERYWHERE_FILE)
	)
	const after = readLocal(keys.filter((key) => localKey(key) !== undefined))
	return { before, after: withKeptShown(keptFor(t.key, newer, after), keys, after, newer) }
}

/** The files here with their keys that stay on this machine shown as the server has them: they are no difference. */
export function withKeptShown(kept: Kept, keys: string[], here: Files, server: Files): Files {
	const shownHere = { ...here }
	for (const key of Object.keys(kept)) {
		const file = kept[key]
		if (file === undefined || !keys.includes(key) || (!Object.hasOwn(here, key) && !file.whole)) continue
		const content = masked(key, ownValue(here, key), ownValue(server, key), file)
		if (content === undefined) delete shownHere[key]
		else shownHere[key] = content
	}
	return shownHere
}

/** What diff compares: two versions on the server (--from), or the server's version (current or --version) and here. */
async function compared(
	s: Session,
	t: Target,
	named: string[] | undefined,
	versions: { to?: number; from?: number }
): Promise<Compared> {
	const latest = await s.run((api) => api.configs.latest(t.latest), t.label)
	const serverSide = versions.to === undefined ? latest : await versionByNumber(s, latest.id, versions.to, t)
	const newer = filesOf(serverSide.data, `${t.label} on the server`)
	if (versions.from !== undefined) {
		const older = await versionByNumber(s, latest.id, versions.from, t)
		return {
			before: filesOf(older.data, `version ${versions.from} of ${t.label}`),
			after: newer,
			labels: [`v${versions.from}`, `v${serverSide.version}`]
		}
	}
	return { ...(await againstHere(s, t, newer, named)), labels: [`server v${serverSide.version}`, 'local'] }
}

/** A unified patch per file that differs, in key order. */
export function patchesOf({ before, after, labels }: Compared): { key: string; patch: string }[] {
	const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()
	return keys
		.filter((key) => ownValue(before, key) !== ownValue(after, key))
		.map((key) => ({
			key,
			patch: createTwoFilesPatch(
				`a/${shown(key)}`,
				`b/${shown(key)}`,
				visible(ownValue(before, key) ?? ''),
				visible(ownValue(after, key) ?? ''),
				labels[0],
				labels[1]
			)
		}))
}

/** A patch line as printed: added green, removed red, hunk headers dim. */
function colouredLine(out: Printer, line: string): string {
	const text = safe(line)
	if (line.startsWith('+') && !line.startsWith('+++')) return out.green(text)
	if (line.startsWith('-') && !line.startsWith('---')) return out.red(text)
	return line.startsWith('@@') ? out.dim(text) : text
}

/** The patches' lines as printed, without the `===` rule. */
export const patchLines = (out: Printer, patches: { patch: string }[]): string[] =>
	patches.flatMap(({ patch }) =>
		patch
			.split('\n')
			.filter((line) => !line.startsWith('==='))
			.map((line) => colouredLine(out, line))
	)

async function run({ values, positionals, io, out, session, setExitCode }: Input<typeof options>) {
	const tool = toolArg(positionals[0], 'diff')
	const named = positionals.length > 1 ? pathKeys(positionals.slice(1)) : undefined
	const toNumber = asNumber(values.version, '--version')
	const fromNumber = asNumber(values.from, '--from')
	if (fromNumber !== undefined && named)
		throw new CliFailure('--from compares two versions on the server: PATHs do not apply', EXIT.usage)
	const s = session(values)
	const t = await resolveTarget(s, tool, values)
	const sides = await compared(s, t, named, { to: toNumber, from: fromNumber })
	const patches = patchesOf(sides)
	const [from, to] = sides.labels
	if (values.json)
		out.json({ from, to, patches: patches.map((p) => ({ path: p.key, file: shown(p.key), patch: p.patch })) })
	else if (patches.length === 0) out.say(`No differences between ${from} and ${to}.`)
	else await page(io, `${patchLines(out, patches).join('\n')}\n`, { noPager: values['no-pager'] })
	if (values['exit-code'] && patches.length > 0) setExitCode(EXIT.error)
}

/** Content with invisible differences made visible line by line (a BOM, a CR before the newline), so a diff never looks empty. */
const visible = (content: string): string => content.replace(/^\uFEFF/, '\\u{feff}').replace(/\r\n/g, '\\r\n')

export const diff = defineCommand({
	name: 'diff',
	group: 'Sync',
	summary: '',
	usage: ['diff TOOL [--version V] [--from A] [--exit-code] [--no-pager]'],
	help: DIFF_HELP,
	args: [TOOL, PATHS],
	options,
	run
})
