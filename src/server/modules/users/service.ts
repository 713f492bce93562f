import { toIso, type Clock } from '../../lib/clock'
import { AppError } from '../../lib/errors'
import { newId } from '../../lib/ids'
import type { PasswordHasher } from '../../lib/passwords'
import type { AuditActor, ListPage, Store, UserActivityRow, UserRow } from '../../store/types'
import { ADMIN_COMMAND, createAuditEvents, type Actor } from '../audit/event'
import { userFailureKey } from '../auth/service'
import { NewUserInput, Password, PlanName } from '../../../shared/api/users'

/** What an admin sees of a user: never the password hash. */
export type UserView = Omit<UserRow, 'passwordHash'> & { hasPassword: boolean }
export type UserActivityView = Omit<UserActivityRow, 'passwordHash'> & { hasPassword: boolean }

/** What `add` is given, as a form or the admin command sends it: checked against NewUserInput there. */
export type NewUserRequest = { [K in keyof NewUserInput]: K extends 'plan' ? string : NewUserInput[K] }

const view = <T extends UserRow>({ passwordHash, ...user }: T) => ({ ...user, hasPassword: passwordHash !== null })

function parse<T>(
	schema: {
		safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: { message: string }[] } }
	},
	value: unknown
): T {
	const result = schema.safeParse(value)
	if (!result.success) throw new AppError('invalid_request', result.error.issues[0]?.message ?? 'Invalid value.')
	return result.data
}

/**
 * User administration (docs/operations.md), for the server binary's admin commands
 * and the web application's Admin page. `by` is who acts, for the audit log:
 * the admin command by default, or a signed-in server admin.
 */
export function createUsersService({
	store,
	clock,
	passwords
}: {
	store: Store
	clock: Clock
	passwords: PasswordHasher
}) {
	const event = createAuditEvents(clock)
	const about = (user: UserRow) => ({
		subjectUserId: user.id,
		target: { type: 'user' as const, id: user.id, name: user.username }
	})

	async function find(login: string): Promise<UserRow> {
		const user = await store.users.findByLogin(login)
		if (!user) throw new AppError('not_found', `No user with email or username "${login}".`)
		return user
	}

	return {
		find: async (login: string) => view(await find(login)),

		/** A user by id, as the web application's Admin page names them; 404 when there is none. */
		async findById(id: string): Promise<UserView> {
			const user = await store.users.findById(id)
			if (!user) throw new AppError('not_found', 'No such user.')
			return view(user)
		},

		/** Creates a user; 409 when the email or username is taken, case-insensitively. */
		async add(
			input: NewUserRequest & { isAdmin?: boolean },
			by: Actor | AuditActor = ADMIN_COMMAND
		): Promise<UserView> {
			const valid = parse(NewUserInput, input)
			const user: UserRow = {
				id: newId(),
				email: valid.email,
				username: valid.username,
				passwordHash: valid.password === undefined ? null : await passwords.hash(valid.password),
				plan: valid.plan,
				isAdmin: input.isAdmin === true,
				createdAt: toIso(clock.now())
			}
			const created = await store.users.create(
				user,
				event('user.created', by, { ...about(user), details: { plan: user.plan, admin: user.isAdmin } })
			)
			if (!created) throw new AppError('conflict', 'A user with that email or username already exists.')
			return view(user)
		},

		list: async (): Promise<UserView[]> => (await store.users.list()).map(view),

		/** For the Admin page: users with their key count and when they were last seen (a page of them, when asked). */
		listWithActivity: async (page?: ListPage): Promise<UserActivityView[]> =>
			(await store.users.listWithActivity(page)).map(view),

		/** How many users the Admin page's search finds (all of them without one). */
		count: (search?: string): Promise<number> => store.users.count(search),

		/** One row of the Admin page, after a change to that user; 404 when there is none. */
		async activityOf(id: string): Promise<UserActivityView> {
			const user = (await store.users.listWithActivity()).find((candidate) => candidate.id === id)
			if (!user) throw new AppError('not_found', 'No such user.')
			return view(user)
		},

		/** The plan is checked here, so a form's text may be passed as is. */
		async setPlan(login: string, plan: string, by: Actor | AuditActor = ADMIN_COMMAND): Promise<UserView> {
			const user = await find(login)
			const valid = parse(PlanName, plan)
			await store.users.setPlan(
				user.id,
				valid,
				event('user.plan_changed', by, { ...about(user), details: { from: user.plan, to: valid } })
			)
			return view({ ...user, plan: valid })
		},

		/** docs/operations.md `user set-admin LOGIN on|off`: server admins see the web application's Admin page. */
		async setAdmin(login: string, isAdmin: boolean, by: Actor | AuditActor = ADMIN_COMMAND): Promise<UserView> {
			const user = await find(login)
			await store.users.setAdmin(
				user.id,
				isAdmin,
				event('user.admin_changed', by, { ...about(user), details: { admin: isAdmin } })
			)
			return view({ ...user, isAdmin })
		},

		/**
		 * An admin sets a user's password: every web session of the user ends;
		 * with `revokeKeys` every key goes too (signed out everywhere).
		 */
		async setPassword(
			login: string,
			password: string,
			options: { revokeKeys?: boolean } = {},
			by: Actor | AuditActor = ADMIN_COMMAND
		) {
			const user = await find(login)
			const hash = await passwords.hash(parse(Password, password))
			const result = await store.users.setPassword(
				user.id,
				hash,
				{ revokeKeys: options.revokeKeys },
				event('user.password_reset', by, about(user))
			)
			if (!result) throw new AppError('not_found', `No user with email or username "${login}".`)
			return result
		},

		/** docs/operations.md `user revoke-keys`: every API key and web session of the user ends at once. */
		async revokeKeys(login: string, by: Actor | AuditActor = ADMIN_COMMAND) {
			const user = await find(login)
			return {
				user: view(user),
				...(await store.users.signOutEverywhere(user.id, event('keys.revoked', by, about(user))))
			}
		},

		/** docs/operations.md `user unlock`: clears the failed-login counts of a user, from every address. */
		async unlock(login: string, by: Actor | AuditActor = ADMIN_COMMAND): Promise<{ user: UserView; cleared: number }> {
			const user = await find(login)
			return {
				user: view(user),
				cleared: await store.loginFailures.clearLogin(userFailureKey(user.id), event('user.unlocked', by, about(user)))
			}
		},

		/** Refuses while the user is the last owner of a team that has other members, naming the teams. */
		async remove(login: string, by: Actor | AuditActor = ADMIN_COMMAND): Promise<UserView> {
			const user = await find(login)
			const result = await store.users.remove(user.id, event('user.removed', by, about(user)))
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
