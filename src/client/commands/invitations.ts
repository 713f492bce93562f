import { noMore } from '../context'
import { CliFailure, EXIT, safe } from '../output'
import { defineCommand, type Input } from './command'

export const INVITATIONS_HELP = `cfgsync invitations
cfgsync invitations accept SLUG
cfgsync invitations decline SLUG

Your pending team invitations; accept one to join the team with the role it names, or decline it.`

const options = {} as const

type InvitationsInput = Input<typeof options>

async function list({ values, positionals, out, session }: InvitationsInput) {
	noMore(positionals, 0, 'invitations')
	const s = session(values)
	const invitations = await s.run((api) => api.invitations.list())
	if (values.json) return out.json(invitations)
	if (invitations.length === 0) return out.say('No pending invitations.')
	out.table(
		['TEAM', 'NAME', 'ROLE', 'INVITED BY', 'EXPIRES'],
		invitations.map((i) => [safe(i.teamSlug), safe(i.teamName), safe(i.role), safe(i.invitedBy), out.ago(i.expiresAt)])
	)
	out.say(out.dim('Accept one with: cfgsync invitations accept SLUG (or decline SLUG)'))
}

/** accept or decline: the team is asked for after the session, as a missing word is only a usage error once logged in. */
const answer =
	(sub: 'accept' | 'decline') =>
	async ({ values, positionals, out, session }: InvitationsInput) => {
		const [slug] = positionals
		noMore(positionals, 1, 'invitations')
		const s = session(values)
		if (!slug) throw new CliFailure(`which team? cfgsync invitations ${sub} SLUG (see cfgsync invitations)`, EXIT.usage)
		const what = `An invitation to "${slug}"`
		if (sub === 'accept') {
			const member = await s.run((api) => api.invitations.accept(slug), what)
			if (values.json) return out.json(member)
			return out.say(
				`${out.green('Joined')} ${safe(slug)} as ${safe(member.role)}. Its configs: cfgsync list --team ${safe(slug)}`
			)
		}
		await s.run((api) => api.invitations.decline(slug), what)
		if (values.json) return out.json({ team: slug, declined: true })
		out.say(`Declined the invitation to ${safe(slug)}.`)
	}

export const invitations = defineCommand({
	name: 'invitations',
	group: 'Teams',
	summary: '',
	usage: ['invitations | invitations accept SLUG | invitations decline SLUG'],
	help: INVITATIONS_HELP,
	args: [],
	defaultSubcommand: 'list',
	subcommands: [
		{ name: 'list', args: [], run: list },
		{ name: 'accept', args: [{ name: 'SLUG' }], run: answer('accept') },
		{ name: 'decline', args: [{ name: 'SLUG' }], run: answer('decline') }
	],
	options
})
