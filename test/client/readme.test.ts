import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { TOOLS } from '../../src/shared/constants'
import { WELL_KNOWN } from '../../src/client/tools'

/** The table of well-known files in docs/client.md ("Files, paths and safety") is compared with the client's own list. */

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
