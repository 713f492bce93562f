import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { TOOLS } from '../../src/shared/constants'
import { DESCRIPTORS, WELL_KNOWN } from '../../src/client/tools'

/**
 * The table of well-known files in docs/client.md ("Files, paths and safety")
 * and the README's list of inert settings are compared with the client's own.
 */

describe('docs/client.md', () => {
	test("the table of well-known files and directories is the client's list, tool by tool", () => {
		const readme = readFileSync(join(import.meta.dir, '..', '..', 'docs', 'client.md'), 'utf8')
		const start = readme.indexOf('| tool | files | directories (their text files) |')
		expect(start).toBeGreaterThan(0)
		const rows = readme
			.slice(start)
			.split('\n')
			.slice(2)
			.filter((line, i, all) => line.startsWith('|') && all.slice(0, i).every((before) => before.startsWith('|')))
		const cells = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string)
		const table = Object.fromEntries(
			rows.map((row) => {
				const [, tool, files, dirs] = row.split('|').map((cell) => cell.trim())
				return [tool, { files: cells(files ?? ''), dirs: cells(dirs ?? '').map((dir) => dir.replace(/\/$/, '')) }]
			})
		)
		expect(Object.keys(table)).toEqual([...TOOLS])
		expect(table).toEqual(WELL_KNOWN)
	})
})

describe('README.md', () => {
	test("the inert settings a team pull writes without asking are each tool's descriptor's, tool by tool", () => {
		const readme = readFileSync(join(import.meta.dir, '..', '..', 'README.md'), 'utf8')
		const start = readme.indexOf('| tool | inert settings |')
		expect(start).toBeGreaterThan(0)
		const lines = readme.slice(start).split('\n').slice(2)
		const rows = lines.slice(
			0,
			lines.findIndex((line) => !line.startsWith('|'))
		)
		const cells = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string)
		const listed: Record<string, string[]> = {}
		for (const row of rows) {
			const [, tools, settings] = row.split('|').map((cell) => cell.trim())
			for (const tool of cells(tools ?? '')) {
				expect(listed[tool]).toBeUndefined()
				listed[tool] = cells(settings ?? '')
			}
		}
		expect(Object.keys(listed).sort()).toEqual([...TOOLS].sort())
		for (const tool of TOOLS)
			expect({ tool, inert: listed[tool] }).toEqual({
				tool,
				inert: DESCRIPTORS[tool].inert.map((path) => path.join('.'))
			})
	})
})
