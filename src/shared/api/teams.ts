import { z } from 'zod'
import { INVITED_ROLES, ROLES, TEAM_NAME_MAX } from '../constants'
import { SLUG_MAX, SLUG_PATTERN } from '../slug'
import { codePointLength, FORMAT_CHARACTERS_REFUSED, hasControlCharacters, hasFormatCharacters } from '../text'

const required = (message: string) => (issue: { input: unknown }) => (issue.input === undefined ? 'Required.' : message)

export const TeamName = z
	.string({ error: required('Must be a string.') })
	.trim()
	// Stored composed (NFC): "Café" typed two ways is one name (docs/api.md).
	.normalize('NFC')
	.min(1, 'Give the team a name.')
	.max(TEAM_NAME_MAX * 2)
	.refine((name) => codePointLength(name) <= TEAM_NAME_MAX, `At most ${TEAM_NAME_MAX} characters.`)
	.refine((name) => !hasControlCharacters(name), 'Control characters are not allowed.')
	.refine((name) => !hasFormatCharacters(name), FORMAT_CHARACTERS_REFUSED)
	.describe(`1-${TEAM_NAME_MAX} characters, trimmed`)
export const Slug = z
	.string()
	.max(SLUG_MAX, `At most ${SLUG_MAX} characters.`)
	.regex(SLUG_PATTERN, 'Slugs are lower-case letters and digits in words joined by single dashes.')
	.describe('globally unique; lower-case letters and digits joined by dashes')

export const CreateTeamBody = z.object({
	name: TeamName,
	slug: Slug.optional().describe('instead of the one made from the name')
})
export type CreateTeamBody = z.infer<typeof CreateTeamBody>
export const PatchTeamBody = z.object({ name: TeamName.optional(), slug: Slug.optional() })
export type PatchTeamBody = z.infer<typeof PatchTeamBody>

const Role = z.enum(ROLES, { error: required(`Must be one of ${ROLES.join(', ')}.`) })
export const AddMemberBody = z.object({
	login: z
		.string({ error: required('Must be a string.') })
		.trim()
		.min(1)
		.max(320)
		.describe('email or username of an existing user'),
	role: z.enum(INVITED_ROLES, { error: required('Must be admin or member.') }).default('member')
})
export type AddMemberBody = z.infer<typeof AddMemberBody>
export const SetRoleBody = z.object({ role: Role })
export type SetRoleBody = z.infer<typeof SetRoleBody>

// Path slugs are not validated beyond being text: an unknown or malformed slug is simply not found.
export const SlugParams = z.object({ slug: z.string() })
/** How many members GET /api/teams/:slug carries (docs/api.md, pagination); the rest through GET /api/teams/:slug/members. */
export const MEMBERS_IN_DETAIL = 100

export const MembersQuery = z.object({
	limit: z.coerce
		.number()
		.int()
		.min(1)
		.max(1000)
		.default(100)
		.describe('at most this many members (default 100); when more remain the answer carries `Link: <…>; rel="next"`'),
	after: z
		.string()
		.regex(/^[0-9T:.Z-]{10,40}_[0-9a-f-]{36}$/, 'Must be the cursor a rel="next" link carries.')
		.optional()
		.describe('the cursor of a `rel="next"` link (the last member of the previous page)')
})
export type MembersQuery = z.infer<typeof MembersQuery>
export const MemberParams = z.object({ slug: z.string(), userId: z.guid() })

const timestamp = z.iso.datetime()

export const TeamCreated = z.object({ id: z.uuid(), name: z.string(), slug: z.string() })
export type TeamCreated = z.infer<typeof TeamCreated>
export const TeamListItem = z.object({
	id: z.uuid(),
	name: z.string(),
	slug: z.string(),
	role: Role,
	createdAt: timestamp
})
export type TeamListItem = z.infer<typeof TeamListItem>
export const TeamMember = z.object({
	id: z.uuid().describe('membership id'),
	userId: z.uuid(),
	email: z.string(),
	username: z.string(),
	role: Role,
	joinedAt: timestamp
})
export type TeamMember = z.infer<typeof TeamMember>
/** What an invitee and the team's owners and admins see of an invitation (no email; docs/api.md). */
export const Invitation = z.object({
	teamSlug: z.string(),
	teamName: z.string(),
	userId: z.uuid(),
	username: z.string(),
	role: z.enum(INVITED_ROLES),
	invitedBy: z.string().describe("the inviter's username"),
	createdAt: timestamp,
	expiresAt: timestamp.describe('7 days after it was sent'),
	status: z.literal('invited')
})
export type Invitation = z.infer<typeof Invitation>
/** What a role change answers: the member, or the pending invitation whose role changed. */
export const RoleChanged = z.union([TeamMember, Invitation])
export type RoleChanged = z.infer<typeof RoleChanged>

export const TeamDetail = z.object({
	id: z.uuid(),
	name: z.string(),
	slug: z.string(),
	createdAt: timestamp,
	userRole: Role,
	members: z.array(TeamMember),
	invitations: z.array(Invitation).optional().describe('pending invitations; owners and admins only')
})
export type TeamDetail = z.infer<typeof TeamDetail>
export const InvitationParams = z.object({ teamSlug: z.string() })
