import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { COMMANDS, overviewHelp, usageOf } from '../../src/server/admin/commands'
import { loadConfig } from '../../src/server/config'
import { environmentHelp, SETTINGS, type SettingName, settingName } from '../../src/server/settings'

/**
 * The server binary's commands (src/server/admin/commands.ts) and settings (src/server/settings.ts)
 * are declared once; these checks hold their help, their parsing and the documentation together.
 */
const longFlags = (text: string) => new Set([...text.matchAll(/(?<![\w-])--[a-z][\w-]*/g)].map(([flag]) => flag))
/** Flags every command takes or the binary answers, whatever the command's own options. */
const EVERY_COMMAND = ['--data-dir', '--database-url', '--help', '--version']

describe('the server commands', () => {
	test('names are unique, and every usage names each of its options and no other', () => {
		const names = COMMANDS.map((command) => command.name)
		expect(new Set(names).size).toBe(names.length)
		const problems = COMMANDS.flatMap((command) => {
			if (command.options === undefined) return []
			const options = Object.keys(command.options).map((name) => `--${name}`)
			const said = longFlags(command.usage)
			return [
				...options.filter((flag) => !said.has(flag)).map((flag) => `${command.name}: ${flag} is not in its usage`),
				...[...said]
					.filter((flag) => !options.includes(flag) && !EVERY_COMMAND.includes(flag))
					.map((flag) => `${command.name}: its usage names ${flag}, which it does not take`)
			]
		})
		expect(problems).toEqual([])
	})

	test('a group with one subcommand answers --help with that usage; the overview lists every command', () => {
		expect(usageOf(['key'])).toBe(usageOf(['key', 'issue']))
		expect(usageOf(['db'])).toBe(usageOf(['db', 'copy']))
		expect(usageOf(['nothing'])).toBeUndefined()
		const help = overviewHelp('0.0.0')
		for (const command of COMMANDS.filter((c) => c.overview !== undefined))
			expect(help).toContain(`cfgsync-server ${command.name === 'serve' ? '[serve]' : command.name}`)
	})
})

describe('the settings', () => {
	const names = Object.keys(SETTINGS) as SettingName[]

	test('each is a key of the configuration, and an invalid one is named by its flag and variable', () => {
		expect(Object.keys(loadConfig({}, {})).sort()).toEqual([...names].sort())
		expect(settingName('port')).toBe('--port / CFGSYNC_PORT')
		expect(settingName('logLevel')).toBe('CFGSYNC_LOG_LEVEL')
	})

	test("docs/operations.md's configuration table lists every variable and flag, and no other", () => {
		const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8')
		const table = doc.slice(doc.indexOf('## Configuration'), doc.indexOf('## Admin commands'))
		const documented = new Set([...table.matchAll(/CFGSYNC_[A-Z_]+/g)].map(([name]) => name))
		const declared = new Set(names.flatMap((name) => SETTINGS[name].env.filter((env) => env.startsWith('CFGSYNC_'))))
		expect([...documented].sort()).toEqual([...declared].sort())
		for (const name of names) {
			const flag = (SETTINGS[name] as { flag?: { name: string } }).flag
			if (flag) expect(table).toContain(`\`--${flag.name} `)
		}
	})

	test("cfgsync-server --help's Environment lines name every variable an operator may set", () => {
		const help = environmentHelp()
		const missing = names
			.flatMap((name) => SETTINGS[name].env.filter((env) => env.startsWith('CFGSYNC_')))
			.filter((env) => !help.includes(env))
		expect(missing).toEqual([])
	})
})
