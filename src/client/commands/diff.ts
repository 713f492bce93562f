import { createTwoFilesPatch } from 'diff'
import { session, tool as toolArg } from '../context'
import { asFileSet, readLocal } from '../files'
import { CliFailure, dim, EXIT, green, json, red, safe, say } from '../output'
import { page } from '../pager'
import { platform } from '../paths'
import { resolveTarget } from '../run'
import { configScope } from '../ownership'
import { getState } from '../state'
import { keptFor } from '../local-keys'
import { ownValue } from '../sync/engine'
import { EVERYWHERE_FILE, masked } from '../sync/local-keys'
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

async function run({ values, positionals }: Input<typeof options>) {
	const tool = toolArg(positionals[0], 'diff')
	const named = positionals.length > 1 ? pathKeys(positionals.slice(1)) : undefined
	const toNumber = asNumber(values.version, '--version')
	const fromNumber = asNumber(values.from, '--from')
	if (fromNumber !== undefined && named)
		throw new CliFailure('--from compares two versions on the server: PATHs do not apply', EXIT.usage)
	const s = session(values)
	const t = await resolveTarget(s, tool, values)
	const latest = await s.run((api) => api.configs.latest(t.latest), t.label)
	const serverSide = toNumber === undefined ? latest : await versionByNumber(s, latest.id, toNumber, t)
	const newer = filesOf(serverSide.data, `${t.label} on the server`)
	let before: Record<string, string>
	let after: Record<string, string>
	let labels: [string, string]
	if (fromNumber !== undefined) {
		before = filesOf((await versionByNumber(s, latest.id, fromNumber, t)).data, `version ${fromNumber} of ${t.label}`)
		after = newer
		labels = [`v${fromNumber}`, `v${serverSide.version}`]
	} else {
		const state = getState(t.key)
		// The files this config syncs here: not those a team config of the tool owns on this machine.
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
		before = Object.fromEntries(Object.entries(newer).filter(([key]) => keys.includes(key) && key !== EVERYWHERE_FILE))
		after = readLocal(keys.filter((key) => localKey(key) !== undefined))
		// Keys that stay on this machine are no difference (docs/sync-model.md): shown as the server has them.
		const kept = keptFor(t.key, newer, after)
		for (const key of Object.keys(kept)) {
			const file = kept[key]
			if (file === undefined || !keys.includes(key) || (!Object.hasOwn(after, key) && !file.whole)) continue
			const shownHere = masked(key, ownValue(after, key), ownValue(newer, key), file)
			if (shownHere === undefined) delete after[key]
			else after[key] = shownHere
		}
		labels = [`server v${serverSide.version}`, 'local']
	}
	const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()
	const patches = keys
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
	if (values.json)
		json({
			from: labels[0],
			to: labels[1],
			patches: patches.map((p) => ({ path: p.key, file: shown(p.key), patch: p.patch }))
		})
	else if (patches.length === 0) say(`No differences between ${labels[0]} and ${labels[1]}.`)
	else {
		const out: string[] = []
		for (const { patch } of patches) {
			for (const line of patch.split('\n')) {
				if (line.startsWith('===')) continue
				const text = safe(line)
				out.push(
					line.startsWith('+') && !line.startsWith('+++')
						? green(text)
						: line.startsWith('-') && !line.startsWith('---')
							? red(text)
							: line.startsWith('@@')
								? dim(text)
								: text
				)
			}
		}
		await page(`${out.join('\n')}\n`, { noPager: values['no-pager'] })
	}
	if (values['exit-code'] && patches.length > 0) process.exitCode = EXIT.error
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
