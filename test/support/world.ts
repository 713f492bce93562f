import { testApp, type TestApp, type TestUser } from './helpers'
import { freezeTestStore } from './engine'
import type { Store } from '../../src/server/store/types'

/**
 * A small world with every kind of caller docs/api.md distinguishes:
 * alice (pro) owns personal config P; fred (free) owns personal config F;
 * team "crew" is owned by tom (team plan) with ann (pro) as admin, max (pro)
 * and fay (free) as members, and holds team config C; oscar (team plan) is
 * in no team; ivy (pro) is invited to crew as a member and has not answered.
 * Every config has two versions. aliceReadOnly and tomReadOnly are read-only keys of alice and tom.
 */
export async function buildWorld(options: { store?: Store } = {}) {
	const t = testApp(options)
	const alice = await t.user('pro', 'alice')
	const fred = await t.user('free', 'fred')
	const oscar = await t.user('team', 'oscar')
	const tom = await t.user('team', 'tom')
	const ann = await t.user('pro', 'ann')
	const max = await t.user('pro', 'max')
	const fay = await t.user('free', 'fay')
	const ivy = await t.user('pro', 'ivy')

	const team = (await t.call('POST', '/api/teams', { key: tom.key, body: { name: 'Crew' } })).body as {
		id: string
		slug: string
	}
	await t.join(tom, team.slug, ann, 'admin')
	await t.join(tom, team.slug, max)
	await t.join(tom, team.slug, fay)
	await t.call('POST', `/api/teams/${team.slug}/members`, { key: tom.key, body: { login: 'ivy', role: 'member' } })

	async function config(owner: TestUser, body: object) {
		const first = await t.call('POST', '/api/configs', { key: owner.key, body: { ...body, data: { v: 1 } } })
		await t.call('POST', '/api/configs', { key: owner.key, body: { ...body, data: { v: 2 } } })
		const versions = (
			await t.call('GET', `/api/configs/${first.body.id}/versions`, { key: (owner.plan === 'free' ? tom : owner).key })
		).body
		return { id: first.body.id as string, oldVersionId: versions?.[1]?.id as string | undefined, ...body }
	}
	const P = await config(alice, { name: 'p', tool: 'cursor' })
	const F = await t.call('POST', '/api/configs', { key: fred.key, body: { name: 'f', tool: 'cursor', data: { v: 1 } } })
	const C = await config(tom, { name: 'c', tool: 'vscode', teamId: team.id })

	// A key that was valid and has been revoked, and a spare key of alice's to revoke.
	const old = await t.call('POST', '/api/auth/login', {
		body: { login: 'alice', password: alice.password, device: 'old' }
	})
	await t.call('POST', '/api/auth/logout', { key: old.body.apiKey })
	const spare = await t.call('POST', '/api/auth/login', {
		body: { login: 'alice', password: alice.password, device: 'spare' }
	})
	// Read-only keys (docs/api.md keys with a scope) of alice and of tom, crew's owner: what CI holds.
	const readOnly = async (user: TestUser) =>
		(
			await t.call('POST', '/api/auth/login', {
				body: { login: user.username, password: user.password, device: 'ci', scope: 'read-only' }
			})
		).body.apiKey as string

	return {
		t,
		users: { alice, fred, oscar, tom, ann, max, fay, ivy },
		keys: {
			none: undefined,
			malformed: 'cs_not-a-key',
			revoked: old.body.apiKey as string,
			alice: alice.key,
			fred: fred.key,
			oscar: oscar.key,
			tom: tom.key,
			ann: ann.key,
			max: max.key,
			fay: fay.key,
			ivy: ivy.key,
			aliceReadOnly: await readOnly(alice),
			tomReadOnly: await readOnly(tom)
		},
		team,
		P,
		F: { id: F.body.id as string },
		C,
		spareKeyId: spare.body.id as string
	}
}

export type World = Awaited<ReturnType<typeof buildWorld>>

/**
 * The world built once; each call of the function returned gives a copy of it as it was then, with
 * an app of its own (the same master key, so its sealed versions open): for tables of requests that
 * each need the world untouched, at the cost of a copy rather than a build.
 */
export async function frozenWorld(): Promise<() => World> {
	const built = await buildWorld()
	const copy = await freezeTestStore(built.t.store)
	return () => ({ ...built, t: testApp({ store: copy(), sealer: built.t.sealer }) })
}
export type CallerName = keyof World['keys']
export const CALLERS: CallerName[] = [
	'none',
	'malformed',
	'revoked',
	'alice',
	'fred',
	'oscar',
	'tom',
	'ann',
	'max',
	'fay',
	'ivy',
	'aliceReadOnly',
	'tomReadOnly'
]
export type { TestApp }
