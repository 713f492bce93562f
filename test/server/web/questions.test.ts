import { describe, expect, test } from 'bun:test'
import { AddMemberBody, CreateTeamBody } from '../../../src/shared/api/teams'
import { AppError } from '../../../src/server/lib/errors'
import { createConfigPolicy, type ConfigAction } from '../../../src/server/modules/configs/policy'
import { createUsersService } from '../../../src/server/modules/users/service'
import { createsTeams } from '../../../src/server/modules/users/plan'
import { formError } from '../../../src/server/web/kit'
import { fastPasswords } from '../../support/helpers'
import { push, webApp } from '../../support/web'

/**
 * What the pages ask the modules rather than decide themselves (docs/web.md):
 * the config policy's yes or no, the plan rule for creating teams, a user by
 * id, and one message for a form that fails its schema.
 */

const ACTIONS: ConfigAction[] = ['read', 'write', 'history', 'rollback']

describe('policy.can', () => {
	test('says yes exactly when authorize lets the caller through, for every caller, config and action', async () => {
		const w = webApp()
		const alice = await w.user('team', 'alice')
		const ann = await w.user('team', 'ann')
		const mike = await w.user('team', 'mike')
		const fran = await w.user('free', 'fran')
		const paul = await w.user('pro', 'paul')
		expect((await w.call('POST', '/api/teams', { key: alice.key, body: { name: 'Crew' } })).status).toBe(201)
		await w.join(alice, 'crew', ann, 'admin')
		await w.join(alice, 'crew', mike, 'member')
		await w.join(alice, 'crew', fran, 'member')
		const team = (await w.call('GET', '/api/teams/crew', { key: alice.key })).body as { id: string }
		const personal = await w.store.configs.findById(await push(w, alice, { v: 1 }, { name: 'mine' }))
		const shared = await w.store.configs.findById(await push(w, alice, { v: 1 }, { name: 'shared', teamId: team.id }))
		const policy = createConfigPolicy(w.store)

		const answers: Record<string, boolean> = {}
		for (const [who, user] of Object.entries({ alice, ann, mike, fran, paul })) {
			const caller = { userId: user.id, email: user.email, username: user.username }
			for (const [which, config] of Object.entries({ personal: personal!, shared: shared! })) {
				for (const action of ACTIONS) {
					const can = await policy.can(caller, config, action)
					const authorized = await policy.authorize(caller, config, action).then(
						() => true,
						(error: unknown) => {
							expect(error).toBeInstanceOf(AppError)
							return false
						}
					)
					expect({ who, which, action, can }).toEqual({ who, which, action, can: authorized })
					answers[`${who} ${which} ${action}`] = can
				}
			}
		}
		// The rules of the config page's Roll back button, spelled out.
		expect(answers['alice personal rollback']).toBe(true)
		expect(answers['alice shared rollback']).toBe(true)
		expect(answers['ann shared rollback']).toBe(true)
		expect(answers['mike shared rollback']).toBe(false)
		expect(answers['mike shared history']).toBe(true)
		expect(answers['fran shared history']).toBe(false)
		expect(answers['fran shared read']).toBe(true)
		expect(answers['paul shared read']).toBe(false)
		expect(answers['ann personal read']).toBe(false)
	})
})

test('creating teams needs the Team plan: one rule for the service and the Teams page', () => {
	expect([createsTeams('free'), createsTeams('pro'), createsTeams('team')]).toEqual([false, false, true])
})

test('users.findById: a user by id, without the password hash; an unknown id is a 404', async () => {
	const w = webApp()
	const alice = await w.user('team', 'alice')
	const users = createUsersService({ store: w.store, clock: w.clock, passwords: fastPasswords })
	const found = await users.findById(alice.id)
	expect(found).toMatchObject({ id: alice.id, username: 'alice', plan: 'team', hasPassword: true })
	expect(found).not.toHaveProperty('passwordHash')
	const missing = await users.findById('00000000-0000-4000-8000-000000000000').catch((error: unknown) => error)
	expect(missing).toBeInstanceOf(AppError)
	expect(missing).toMatchObject({ code: 'not_found', message: 'No such user.' })
	expect(await users.activityOf(alice.id)).toMatchObject({ id: alice.id, keyCount: 1 })
})

describe('formError', () => {
	test("the first problem, led by its field's label, as a 400", () => {
		const slug = CreateTeamBody.safeParse({ name: 'Crew', slug: 'Not A Slug' })
		expect(slug.success).toBe(false)
		const error = formError(slug.error!, { name: 'Name', slug: 'Slug' })
		expect(error).toBeInstanceOf(AppError)
		expect({ code: error.code, status: error.status, message: error.message }).toEqual({
			code: 'invalid_request',
			status: 400,
			message: 'Slug: Slugs are lower-case letters and digits in words joined by single dashes.'
		})
		expect(formError(CreateTeamBody.safeParse({ name: ' ' }).error!, { name: 'Name', slug: 'Slug' }).message).toBe(
			'Name: Give the team a name.'
		)
		expect(
			formError(AddMemberBody.safeParse({ login: 'x', role: 'owner' }).error!, {
				login: 'Username or email',
				role: 'Role'
			}).message
		).toBe('Role: Must be admin or member.')
	})

	test('a problem with no label is its message alone', () => {
		expect(formError(CreateTeamBody.safeParse({ name: '' }).error!, {}).message).toBe('Give the team a name.')
	})
})
