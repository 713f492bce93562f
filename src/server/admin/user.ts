import { DEVICE_MAX, PLANS, type Plan } from '../../shared/constants'
import { LoginBody } from '../../shared/api/auth'
import { parseCommand, passwordFrom, usageError } from './io'
import { ADMIN_COMMAND } from '../modules/audit/event'
import { withAdmin } from './context'
import { OPTIONS } from './commands'
import { SETTINGS } from '../settings'

function plan(value: string | undefined, fallback?: string): Plan {
	const name = value ?? fallback
	if (!PLANS.includes(name as Plan)) throw usageError(`unknown plan "${name}": use one of ${PLANS.join(', ')}`)
	return name as Plan
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`

function one(positionals: string[], count: number, what: string): string[] {
	if (positionals.length !== count) throw usageError(`expected ${what}`)
	return positionals
}

export async function userCommand(args: string[]) {
	const [sub, ...rest] = args
	switch (sub) {
		case 'add': {
			const { values } = parseCommand(rest, OPTIONS['user add'])
			if (!values.email || !values.username) throw usageError(`user add needs --email and --username`)
			const chosenPlan = plan(values.plan, process.env[SETTINGS.defaultPlan.env[0]] || 'team')
			const password = await passwordFrom(values)
			const user = await withAdmin(
				values['data-dir'],
				(admin) =>
					admin.users.add({
						email: values.email as string,
						username: values.username as string,
						password,
						plan: chosenPlan,
						isAdmin: values.admin === true
					}),
				{},
				{ creates: true }
			)
			process.stdout.write(`${user.id}\n`)
			return
		}
		case 'list': {
			const { values } = parseCommand(rest, OPTIONS['user list'])
			const users = await withAdmin(values['data-dir'], (admin) => admin.users.list())
			if (values.json) {
				process.stdout.write(`${JSON.stringify(users, null, 2)}\n`)
				return
			}
			const rows = [
				['ID', 'EMAIL', 'USERNAME', 'PLAN', 'ADMIN', 'CREATED'],
				...users.map((u) => [u.id, u.email, u.username, u.plan, u.isAdmin ? 'yes' : '', u.createdAt])
			]
			const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)))
			for (const row of rows)
				process.stdout.write(
					`${row
						.map((cell, i) => cell.padEnd(widths[i]!))
						.join('  ')
						.trimEnd()}\n`
				)
			return
		}
		case 'set-plan': {
			const { values, positionals } = parseCommand(rest, OPTIONS['user set-plan'])
			const [login, planName] = one(positionals, 2, 'LOGIN and PLAN')
			const user = await withAdmin(values['data-dir'], (admin) => admin.users.setPlan(login!, plan(planName)))
			process.stdout.write(`${user.username} is now on the ${user.plan} plan\n`)
			return
		}
		case 'passwd': {
			const { values, positionals } = parseCommand(rest, OPTIONS['user passwd'])
			const [login] = one(positionals, 1, 'LOGIN')
			// Fail on an unknown user before asking for a password.
			await withAdmin(values['data-dir'], (admin) => admin.users.find(login!))
			const password = await passwordFrom(values)
			const { revokedKeys } = await withAdmin(values['data-dir'], (admin) =>
				admin.users.setPassword(login!, password, { revokeKeys: values['revoke-keys'] })
			)
			process.stdout.write(
				values['revoke-keys'] ? `password changed; ${plural(revokedKeys, 'key')} revoked\n` : 'password changed\n'
			)
			return
		}
		case 'set-admin': {
			const { values, positionals } = parseCommand(rest, OPTIONS['user set-admin'])
			const [login, setting] = one(positionals, 2, 'LOGIN and on or off')
			if (setting !== 'on' && setting !== 'off') throw usageError(`set-admin takes on or off, not "${setting}"`)
			const user = await withAdmin(values['data-dir'], (admin) => admin.users.setAdmin(login!, setting === 'on'))
			process.stdout.write(
				`${user.username} ${user.isAdmin ? 'is now a server admin' : 'is no longer a server admin'}\n`
			)
			return
		}
		case 'revoke-keys': {
			const { values, positionals } = parseCommand(rest, OPTIONS['user revoke-keys'])
			const [login] = one(positionals, 1, 'LOGIN')
			const { user, revokedKeys, endedSessions } = await withAdmin(values['data-dir'], (admin) =>
				admin.users.revokeKeys(login!)
			)
			process.stdout.write(
				`revoked ${plural(revokedKeys, 'key')} and ${plural(endedSessions, 'web session')} of ${user.username}\n`
			)
			return
		}
		case 'unlock': {
			const { values, positionals } = parseCommand(rest, OPTIONS['user unlock'])
			const [login] = one(positionals, 1, 'LOGIN')
			const { user, cleared } = await withAdmin(values['data-dir'], (admin) => admin.users.unlock(login!))
			process.stdout.write(`cleared ${plural(cleared, 'failed login')} of ${user.username}; they can log in again\n`)
			return
		}
		case 'remove': {
			const { values, positionals } = parseCommand(rest, OPTIONS['user remove'])
			const [login] = one(positionals, 1, 'LOGIN')
			const user = await withAdmin(values['data-dir'], (admin) => admin.users.remove(login!))
			process.stdout.write(`removed ${user.username} (${user.email})\n`)
			return
		}
		default:
			throw usageError(
				sub === undefined
					? 'missing user command (add, list, set-plan, set-admin, passwd, revoke-keys, unlock, remove)'
					: `unknown user command "${sub}"`
			)
	}
}

export async function keyCommand(args: string[]) {
	const [sub, ...rest] = args
	if (sub !== 'issue') throw usageError(sub ? `unknown key command "${sub}"` : 'missing key command (issue)')
	const { values, positionals } = parseCommand(rest, OPTIONS['key issue'])
	if (positionals.length !== 1) throw usageError(`expected LOGIN`)
	// The rules of a device name at login (docs/api.md): trimmed, NFC, no control or format characters.
	const parsed = LoginBody.shape.device.safeParse(values.device ?? '')
	if (!parsed.success) {
		throw usageError(
			`key issue needs --device NAME (1-${DEVICE_MAX} characters, no control or invisible characters): ${parsed.error.issues[0]?.message}`
		)
	}
	const device = parsed.data
	const issued = await withAdmin(values['data-dir'], async (admin) => {
		const user = await admin.users.find(positionals[0]!)
		return admin.issueKey(
			user.id,
			device,
			admin.event('key.issued', ADMIN_COMMAND, { subjectUserId: user.id }),
			values['read-only'] ? 'read-only' : 'read-write'
		)
	})
	process.stdout.write(`${issued.apiKey}\n`)
}
