import { toIso, type Clock } from '../../lib/clock'
import type { Plan } from '../../lib/constants'
import { AppError } from '../../lib/errors'
import { newId } from '../../lib/ids'
import type { PasswordHasher } from '../../lib/passwords'
import type { Store, UserRow } from '../../store/types'
import { userFailureKey } from '../auth/service'
import { NewUserInput, Password, PlanName } from './model'

/** What an admin sees of a user: never the password hash. */
export type UserView = Omit<UserRow, 'passwordHash'> & { hasPassword: boolean }

const view = ({ passwordHash, ...user }: UserRow): UserView => ({ ...user, hasPassword: passwordHash !== null })

function parse<T>(schema: { safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: { message: string }[] } } }, value: unknown): T {
	const result = schema.safeParse(value)
	if (!result.success) throw new AppError('invalid_request', result.error.issues[0]?.message ?? 'Invalid value.')
	return result.data
}

/** User administration, used by the admin commands of the binary (CONTRACT §7). */
export function createUsersService({ store, clock, passwords }: { store: Store; clock: Clock; passwords: PasswordHasher }) {
	async function find(login: string): Promise<UserRow> {
		const user = await store.users.findByLogin(login)
		if (!user) throw new AppError('not_found', `No user with email or username "${login}".`)
		return user
	}

	return {
		find: async (login: string) => view(await find(login)),

		/** Creates a user; 409 when the email or username is taken, case-insensitively. */
		async add(input: NewUserInput): Promise<UserView> {
			const valid = parse(NewUserInput, input)
			const user: UserRow = {
				id: newId(),
				email: valid.email,
				username: valid.username,
				passwordHash: valid.password === undefined ? null : await passwords.hash(valid.password),
				plan: valid.plan,
				createdAt: toIso(clock.now())
			}
			if (!(await store.users.create(user))) throw new AppError('conflict', 'A user with that email or username already exists.')
			return view(user)
		},

		list: async (): Promise<UserView[]> => (await store.users.list()).map(view),

		async setPlan(login: string, plan: Plan): Promise<UserView> {
			const user = await find(login)
			await store.users.setPlan(user.id, parse(PlanName, plan))
			return view({ ...user, plan })
		},

		/** Sets a password; with `revokeKeys` every key of the user goes too (signed out everywhere). */
		async setPassword(login: string, password: string, options: { revokeKeys?: boolean } = {}): Promise<{ revokedKeys: number }> {
			const user = await find(login)
			await store.users.setPassword(user.id, await passwords.hash(parse(Password, password)))
			return { revokedKeys: options.revokeKeys ? await store.keys.revokeAllForUser(user.id) : 0 }
		},

		/** CONTRACT §7 `user revoke-keys`: every API key of the user stops working at once. */
		async revokeKeys(login: string): Promise<{ user: UserView; revokedKeys: number }> {
			const user = await find(login)
			return { user: view(user), revokedKeys: await store.keys.revokeAllForUser(user.id) }
		},

		/** CONTRACT §7 `user unlock`: clears the failed-login counts of a user, from every address. */
		async unlock(login: string): Promise<{ user: UserView; cleared: number }> {
			const user = await find(login)
			return { user: view(user), cleared: await store.loginFailures.clearLogin(userFailureKey(user.id)) }
		},

		/** Refuses while the user is the last owner of a team that has other members, naming the teams. */
		async remove(login: string): Promise<UserView> {
			const user = await find(login)
			const result = await store.users.remove(user.id)
			if (result === 'sole_owner') {
				const teams = (await store.users.soleOwnerTeams(user.id)).map((team) => `${team.name} (${team.slug})`)
				throw new AppError(
					'conflict',
					`${user.username} is the last owner of ${teams.join(', ')}, which still has other members: make someone else an owner first.`
				)
			}
			if (!result) throw new AppError('not_found', `No user with email or username "${login}".`)
			return view(user)
		}
	}
}

export type UsersService = ReturnType<typeof createUsersService>
