import { expect, test } from 'bun:test'
import { apiPath, ROUTES } from '../../src/shared/api/routes'

test('apiPath fills every parameter of a pattern, encoded', () => {
	expect(apiPath(ROUTES.member, { slug: 'a b/c', userId: 'u1' })).toBe('/api/teams/a%20b%2Fc/members/u1')
	expect(apiPath(ROUTES.version, { id: 'c1', versionId: 'v1' })).toBe('/api/configs/c1/versions/v1')
	expect(apiPath(ROUTES.acceptInvitation, { teamSlug: 'ops' })).toBe('/api/invitations/ops/accept')
	expect(apiPath(ROUTES.me, {})).toBe('/api/me')
	// @ts-expect-error: a pattern's parameters are all required
	apiPath(ROUTES.member, { slug: 'ops' })
})
