import { noMore, session } from '../context'
import { ago, CliFailure, dim, EXIT, green, json, safe, say, table } from '../output'
import { defineCommand, type Input } from './command'

export const INVITATIONS_HELP = `cfgsync invitations
cfgsync invitations accept SLUG
cfgsync invitations decline SLUG

Your pending team invitations; accept one to join the team with the role it names, or decline it.`

const options = {} as const

async function run({ values, positionals }: Input<typeof options>) {
	const [sub, slug] = positionals
	noMore(positionals, sub === 'accept' || sub === 'decline' ? 2 : 1, 'invitations')
	const s = session(values)
	if (sub === undefined || sub === 'list') {
		const list = await s.run((api) => api.invitations.list())
		if (values.json) return json(list)
		if (list.length === 0) return say('No pending invitations.')
		table(
			['TEAM', 'NAME', 'ROLE', 'INVITED BY', 'EXPIRES'],
			list.map((i) => [safe(i.teamSlug), safe(i.teamName), safe(i.role), safe(i.invitedBy), ago(i.expiresAt)])
		)
		return say(dim('Accept one with: cfgsync invitations accept SLUG (or decline SLUG)'))
	}
	if (!slug) throw new CliFailure(`which team? cfgsync invitations ${sub} SLUG (see cfgsync invitations)`, EXIT.usage)
	const what = `An invitation to "${slug}"`
	if (sub === 'accept') {
		const member = await s.run((api) => api.invitations.accept(slug), what)
		if (values.json) return json(member)
		return say(
			`${green('Joined')} ${safe(slug)} as ${safe(member.role)}. Its configs: cfgsync list --team ${safe(slug)}`
		)
	}
	await s.run((api) => api.invitations.decline(slug), what)
	if (values.json) return json({ team: slug, declined: true })
	say(`Declined the invitation to ${safe(slug)}.`)
}

export const invitations = defineCommand({
	name: 'invitations',
	group: 'Teams',
	summary: '',
	usage: ['invitations | invitations accept SLUG | invitations decline SLUG'],
	help: INVITATIONS_HELP,
	args: [],
	subcommands: [
		{ name: 'list', args: [] },
		{ name: 'accept', args: [{ name: 'SLUG' }] },
		{ name: 'decline', args: [{ name: 'SLUG' }] }
	],
	options,
	run
})
