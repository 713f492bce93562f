import { describe, expect, test } from 'bun:test'
import { systemClock } from '../../src/server/lib/clock'
import { createUsersService } from '../../src/server/modules/users/service'
import { openTestStore } from '../support/engine'
import { fastPasswords } from '../support/helpers'

const setup = () => {
	const store = openTestStore()
	return { store, users: createUsersService({ store, clock: systemClock, passwords: fastPasswords }) }
}

describe('user administration (docs/api.md)', () => {
	test('add hashes the password with Argon2id and never shows it', async () => {
		const { store, users } = setup()
		const user = await users.add({ email: 'Ada@Example.com', username: 'ada', password: 'correct horse', plan: 'pro' })
		expect(user).toMatchObject({ email: 'Ada@Example.com', username: 'ada', plan: 'pro', hasPassword: true })
		expect(JSON.stringify(user)).not.toContain('correct horse')
		const row = await store.users.findById(user.id)
		expect(row?.passwordHash).toStartWith('$argon2id$')
		expect(await fastPasswords.verify(row!.passwordHash!, 'correct horse')).toBe(true)
	})

	test('emails and usernames are unique case-insensitively', async () => {
		const { users } = setup()
		await users.add({ email: 'ada@example.com', username: 'ada', password: 'password1', plan: 'free' })
		await expect(
			users.add({ email: 'ADA@example.com', username: 'other', password: 'password1', plan: 'free' })
		).rejects.toThrow('already exists')
		await expect(
			users.add({ email: 'x@example.com', username: 'ADA', password: 'password1', plan: 'free' })
		).rejects.toThrow('already exists')
	})

	test('rules: a valid email, the username pattern, passwords of 8+ characters, known plans', async () => {
		const { users } = setup()
		const bad = [
			{ email: 'not-an-email', username: 'ok', password: 'password1', plan: 'free' },
			{ email: 'a@example.com', username: 'has space', password: 'password1', plan: 'free' },
			{ email: 'a@example.com', username: 'x'.repeat(65), password: 'password1', plan: 'free' },
			{ email: 'a@example.com', username: 'ok', password: 'short', plan: 'free' },
			{ email: 'a@example.com', username: 'ok', password: 'password1', plan: 'gold' }
		]
		for (const input of bad) await expect(users.add(input as never)).rejects.toMatchObject({ code: 'invalid_request' })
	})

	test('set-plan, passwd and remove find users by email or username', async () => {
		const { store, users } = setup()
		const ada = await users.add({ email: 'ada@example.com', username: 'ada', password: 'password1', plan: 'free' })
		expect((await users.setPlan('ADA@example.com', 'team')).plan).toBe('team')
		await users.setPassword('ada', 'new password')
		expect(await fastPasswords.verify((await store.users.findById(ada.id))!.passwordHash!, 'new password')).toBe(true)
		await users.remove('ada')
		expect(await store.users.findById(ada.id)).toBeUndefined()
		await expect(users.remove('ada')).rejects.toMatchObject({ code: 'not_found' })
	})
})
