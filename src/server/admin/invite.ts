import { PLANS } from '../../shared/constants'
import { SIGNUP_DEFAULTS } from '../modules/signup/service'
import { withAdmin } from './context'
import { OPTIONS } from './commands'
import { SETTINGS } from '../settings'
import { parseCommand, usageError } from './io'
import { displayHost } from './serve'

/**
 * docs/web.md sign-up links from the terminal: `invite create` prints a link that makes one account
 * (or --uses N) on a plan within --days D, as the Admin page's "Invite people" does.
 */
export async function inviteCommand(args: string[]) {
	const [sub, ...rest] = args
	if (sub !== 'create')
		throw usageError(sub === undefined ? 'invite needs a command: create' : `unknown invite command "${sub}"`)
	const { values, positionals } = parseCommand(rest, OPTIONS['invite create'])
	if (positionals.length > 0) throw usageError(`unexpected argument "${positionals[0]}"`)
	const plan = values.plan ?? process.env[SETTINGS.defaultPlan.env[0]] ?? 'team'
	if (!PLANS.includes(plan as (typeof PLANS)[number]))
		throw usageError(`unknown plan "${plan}": use one of ${PLANS.join(', ')}`)
	for (const name of ['uses', 'days'] as const) {
		const value = values[name]
		if (value !== undefined && !/^[0-9]+$/.test(value))
			throw usageError(`--${name} takes a whole number, not "${value}"`)
	}
	const made = await withAdmin(
		values['data-dir'],
		async (admin) => {
			const { token, link } = await admin.signups.createLink({
				plan,
				uses: values.uses ?? SIGNUP_DEFAULTS.uses,
				days: values.days ?? SIGNUP_DEFAULTS.days
			})
			return { token, link, config: admin.config }
		},
		{ publicUrl: values['public-url'] },
		{ creates: true }
	)
	const { config, link, token } = made
	const base = config.publicUrl ?? `http://${displayHost(config.host)}:${config.port}`
	process.stdout.write(`${base}/join/${token}\n`)
	const days = Math.round((Date.parse(link.expiresAt ?? link.createdAt) - Date.parse(link.createdAt)) / 86_400_000)
	process.stderr.write(
		`cfgsync-server: a sign-up link for ${link.maxUses} account${link.maxUses === 1 ? '' : 's'} on the ${link.plan} plan, good for ${days} day${days === 1 ? '' : 's'}; the Admin page lists and revokes it\n`
	)
	if (config.publicUrl === undefined)
		process.stderr.write(
			'cfgsync-server: set CFGSYNC_PUBLIC_URL (or --public-url) to the address people use, such as https://cfgsync.example.com; this link uses the listening address (CFGSYNC_HOST and CFGSYNC_PORT)\n'
		)
}
