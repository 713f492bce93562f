import { describe, expect, test } from 'bun:test'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ApiError } from '../../src/client/api'
import type { Session } from '../../src/client/context'
import { contentHash } from '../../src/client/hash'
import { resolveTarget, runOne } from '../../src/client/run'
import { quietRun } from '../support/client-io'
import { homePerTest } from '../support/client/home'

/**
 * The sync step's retry (src/client/run.ts): a push that meets a newer
 * version (412) is judged again against it, up to three times, and the
 * report holds the writes of every attempt.
 */

const homeNow = homePerTest('run-loop')

const put = (path: string, content: string) => {
	mkdirSync(join(homeNow(), path, '..'), { recursive: true })
	writeFileSync(join(homeNow(), path), content)
}

/** A server of one config whose push is refused with 412 `refusals` times, someone else pushing each time. */
function standIn(files: Record<string, string>, refusals: number) {
	let config = { id: 'c1', version: 1, hash: contentHash({ files }), data: { files } }
	let refused = 0
	const pushes: Record<string, string>[] = []
	const store = (next: Record<string, string>) => {
		config = { id: 'c1', version: config.version + 1, hash: contentHash({ files: next }), data: { files: next } }
	}
	const api = {
		configs: {
			poll: async () => config,
			push: async (body: { data: { files: Record<string, string> } }) => {
				pushes.push(body.data.files)
				if (refused < refusals) {
					refused++
					store({ ...config.data.files, '.gemini/settings.json': `{ "theme": "theme${refused}" }\n` })
					throw new ApiError(412, 'precondition_failed', 'changed meanwhile')
				}
				store(body.data.files)
				return { version: config.version, hash: config.hash }
			}
		},
		keys: { list: async () => [{ device: 'laptop', current: true }] },
		audit: { list: async () => [] }
	}
	const session = {
		server: 'http://stand-in.test',
		profile: 'default',
		api,
		keySource: 'env',
		username: async () => 'ada',
		run: async (call: (a: typeof api) => Promise<unknown>) => call(api)
	} as unknown as Session
	return { session, pushes, latest: () => config }
}

describe('the retry after a 412', () => {
	test('judged again against the newer version: its files written, this machine’s change pushed on top', async () => {
		const { session, pushes, latest } = standIn({ '.gemini/GEMINI.md': 'one\n' }, 2)
		const t = await resolveTarget(session, 'gemini-cli', {})
		await runOne(session, t, { ...quietRun(), mode: 'pull' })
		put('.gemini/GEMINI.md', 'mine\n')
		const report = await runOne(session, t, { ...quietRun(), mode: 'sync' })
		expect(pushes).toHaveLength(3)
		// Someone else's two versions, each written by the attempt that met it.
		expect(report.writes.map((w) => [w.key, w.content])).toEqual([
			['.gemini/settings.json', '{ "theme": "theme1" }\n'],
			['.gemini/settings.json', '{ "theme": "theme2" }\n']
		])
		expect(report.pushed?.version).toBe(latest().version)
		expect(latest().data.files['.gemini/GEMINI.md']).toBe('mine\n')
		expect(latest().data.files['.gemini/settings.json']).toBe('{ "theme": "theme2" }\n')
	})

	test('four refusals in a row: nothing stored, and the command says to run it again', async () => {
		const { session, pushes } = standIn({ '.gemini/GEMINI.md': 'one\n' }, 10)
		const t = await resolveTarget(session, 'gemini-cli', {})
		await runOne(session, t, { ...quietRun(), mode: 'pull' })
		put('.gemini/GEMINI.md', 'mine\n')
		await expect(runOne(session, t, { ...quietRun(), mode: 'sync' })).rejects.toThrow(/kept changing on the server/)
		expect(pushes).toHaveLength(4)
	})
})
