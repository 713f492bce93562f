import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import type { AuditEvent } from '../../../src/server/store/types'
import { testApp } from '../../support/helpers'

/**
 * A user's Activity is what they did and what was done to them. The store reads it as two index-ordered
 * scans merged (an `actor OR subject` condition walked the whole log for a user with few events;
 * docs/performance.md). Checked against a model: every page, either direction, is exactly the model's.
 */
describe("a user's audit pages (docs/api.md, Pages)", () => {
	test('match the model for any mix of events, cursor and limit; an event both did and done to the user comes once', async () => {
		const t = testApp()
		const users = [await t.user('pro', 'ann'), await t.user('pro', 'bob'), await t.user('pro', 'cat')]
		const ids = users.map((user) => user.id)
		const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31)
		console.log(`audit pages property: FC_SEED=${seed}`)
		const events: { id: string; actor: string | null; subject: string | null }[] = []
		const shape = fc.array(
			fc.record({ actor: fc.constantFrom(0, 1, 2, -1), subject: fc.constantFrom(0, 1, 2, -1, -1, -1) }),
			{ minLength: 60, maxLength: 60 }
		)
		for (const [i, { actor, subject }] of fc.sample(shape, { seed, numRuns: 1 })[0]!.entries()) {
			const id = `00000000-0000-7000-8000-${String(i + 1).padStart(12, '0')}`
			const event: AuditEvent = {
				id,
				at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
				type: 'config.pushed',
				actor: { userId: actor < 0 ? null : ids[actor]!, username: null, address: null },
				subjectUserId: subject < 0 ? null : ids[subject]!
			}
			await t.store.audit.record(event)
			events.push({ id, actor: event.actor.userId, subject: event.subjectUserId ?? null })
		}
		await fc.assert(
			fc.asyncProperty(
				fc.constantFrom(...ids),
				fc.integer({ min: 0, max: 61 }),
				fc.boolean(),
				fc.integer({ min: 1, max: 30 }),
				async (userId, cursor, newer, limit) => {
					const at = `00000000-0000-7000-8000-${String(cursor).padStart(12, '0')}`
					const mine = events.filter((event) => event.actor === userId || event.subject === userId)
					const expected = newer
						? mine
								.filter((event) => event.id > at)
								.slice(0, limit)
								.reverse()
						: mine
								.filter((event) => event.id < at)
								.reverse()
								.slice(0, limit)
					const page = await t.store.audit.list({ userId, limit, ...(newer ? { after: at } : { before: at }) })
					expect(page.map((row) => row.id)).toEqual(expected.map((event) => event.id))
				}
			),
			{ seed, numRuns: 60 }
		)
	})
})
