import { expect } from 'bun:test'
import { createSignupService } from '../../src/server/modules/signup/service'
import { freezeTestStore } from './engine'
import { fastPasswords, type TestUser } from './helpers'
import { push, webApp, type Browser } from './web'

/** The web callers the matrix runs as: nobody, each team role, and a server admin outside the team. */
export const CALLERS = ['signedOut', 'member', 'admin', 'owner', 'serverAdmin'] as const
export type CallerName = (typeof CALLERS)[number]

/**
 * One team "crew" owned by alice, with ann (admin), mike and max (members);
 * root is a server admin in no team. Alice has a personal config and the team
 * a team config, each with two versions. Everyone is signed in on the web.
 */
export async function buildWorld() {
	const w = webApp()
	const alice = await w.user('team', 'alice')
	const ann = await w.user('team', 'ann')
	const mike = await w.user('team', 'mike')
	const max = await w.user('team', 'max')
	const root = await w.admin('root')
	expect((await w.call('POST', '/api/teams', { key: alice.key, body: { name: 'Crew' } })).status).toBe(201)
	await w.join(alice, 'crew', ann, 'admin')
	await w.join(alice, 'crew', mike, 'member')
	await w.join(alice, 'crew', max, 'member')
	const team = (await w.call('GET', '/api/teams/crew', { key: alice.key })).body as { id: string }
	const personal = await push(w, alice, { files: { 'a.json': '{"v":1}\n' } }, { name: 'mine' })
	await push(w, alice, { files: { 'a.json': '{"v":2}\n' } }, { name: 'mine' })
	const shared = await push(w, alice, { theme: 'dark' }, { name: 'shared', teamId: team.id })
	await push(w, alice, { theme: 'light' }, { name: 'shared', teamId: team.id })
	const versions = async (id: string) =>
		(await w.call('GET', `/api/configs/${id}/versions`, { key: alice.key })).body as { id: string; version: number }[]
	const aliceKeys = (await w.call('GET', '/api/keys', { key: alice.key })).body as { id: string }[]
	const users: Record<Exclude<CallerName, 'signedOut'>, TestUser> = {
		member: mike,
		admin: ann,
		owner: alice,
		serverAdmin: root
	}
	const browsers = {} as Record<Exclude<CallerName, 'signedOut'>, Browser>
	for (const [name, user] of Object.entries(users)) browsers[name as keyof typeof users] = await w.signIn(user)
	// A sign-up link for 3 accounts (docs/web.md), as `invite create` makes it.
	const link = await createSignupService({ store: w.store, clock: w.clock, passwords: fastPasswords }).createLink({
		plan: 'pro',
		uses: 3
	})
	return {
		w,
		users: { alice, ann, mike, max, root },
		browsers,
		team,
		personal: { id: personal, firstVersion: (await versions(personal)).find((v) => v.version === 1)!.id },
		shared: { id: shared, firstVersion: (await versions(shared)).find((v) => v.version === 1)!.id },
		aliceKeyId: aliceKeys[0]!.id,
		link: { id: link.link.id, token: link.token }
	}
}

export type World = Awaited<ReturnType<typeof buildWorld>>

/**
 * The world built once; each call of the function returned gives a copy of it as it was then (its
 * sessions still signed in), with an app of its own on the same master key.
 */
export async function frozenWorld(): Promise<() => World> {
	const built = await buildWorld()
	const copy = await freezeTestStore(built.w.store)
	return () => ({ ...built, w: webApp({ store: copy(), sealer: built.w.sealer }) })
}

/** Every recorded change (the audit log records each one); failed logins and refused sign-ups change nothing. */
export async function changes(world: World): Promise<string[]> {
	const events = await world.w.store.audit.list({ limit: 100_000 })
	return events
		.filter((event) => event.type !== 'login.failed' && event.type !== 'signup.refused')
		.map((event) => `${event.type} ${event.id}`)
}
