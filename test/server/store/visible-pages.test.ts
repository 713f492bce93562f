import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { testApp } from '../../support/helpers'

/**
 * The Configs page reads one index-ordered scan per scope (personal, each live team) and merges them
 * (docs/performance.md: sorting every visible config before the offset grew with the server). Held to a model:
 * every page, with or without a search, is the model's slice; a deleted team's configs never show.
 */
describe('the configs a user sees, page by page', () => {
	test('match the model for any offset, limit and search', async () => {
		const t = testApp()
		const ann = await t.user('team', 'ann')
		const teams: { id: string; name: string; slug: string }[] = []
		for (const name of ['Zeta', 'Alpha', 'Gone']) {
			const team = (await t.call('POST', '/api/teams', { key: ann.key, body: { name } })).body
			teams.push(team)
		}
		const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31)
		console.log(`visible pages property: FC_SEED=${seed}`)
		const names = ['default', 'work', 'a-b', 'zz', 'work2']
		const tools = ['claude-code', 'cursor', 'vscode']
		const model: { name: string; tool: string; team: string | null }[] = []
		for (const [scope, name, tool] of fc.sample(
			fc.tuple(fc.constantFrom(-1, 0, 1, 2), fc.constantFrom(...names), fc.constantFrom(...tools)),
			{ seed, numRuns: 40 }
		)) {
			const team = scope < 0 ? undefined : teams[scope]
			const pushed = await t.call('POST', '/api/configs', {
				key: ann.key,
				body: { name, tool, data: { n: Math.random() }, ...(team ? { teamId: team.id } : {}) }
			})
			expect(pushed.status).toBeLessThan(300)
			if (pushed.status === 201) model.push({ name, tool, team: team?.name ?? null })
		}
		await t.call('DELETE', '/api/teams/gone', { key: ann.key })
		const live = model.filter((row) => row.team !== 'Gone')
		const order = (a: (typeof live)[0], b: (typeof live)[0]) =>
			a.name.localeCompare(b.name, 'en', { sensitivity: 'variant' }) !== 0 && a.name !== b.name
				? a.name < b.name
					? -1
					: 1
				: a.tool !== b.tool
					? a.tool < b.tool
						? -1
						: 1
					: a.team === b.team
						? 0
						: a.team === null
							? -1
							: b.team === null
								? 1
								: a.team < b.team
									? -1
									: 1
		await fc.assert(
			fc.asyncProperty(
				fc.integer({ min: 0, max: 45 }),
				fc.integer({ min: 1, max: 20 }),
				fc.constantFrom(undefined, 'work', 'cur', 'a-', 'nothing'),
				async (offset, limit, search) => {
					const expected = live
						.filter((row) => search === undefined || row.name.includes(search) || row.tool.includes(search))
						.sort(order)
						.slice(offset, offset + limit)
					const page = await t.store.configs.listVisible(ann.id, { offset, limit, search })
					expect(page.map((row) => [row.name, row.tool, row.teamName])).toEqual(
						expected.map((row) => [row.name, row.tool, row.team])
					)
				}
			),
			{ seed, numRuns: 80 }
		)
	})
})
