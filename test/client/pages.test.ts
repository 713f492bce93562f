import { afterAll, describe, expect, test } from 'bun:test'
import { createApi, nextPage } from '../../src/client/api'

/**
 * docs/performance.md: lists come in pages, and the client follows `Link: <…>; rel="next"` until it has what
 * it asked for — only along this server's own /api/ paths, so a hostile answer cannot lead the key away.
 */

const CONFIG = '0b6f8f9e-1c2d-4e5f-8a9b-0c1d2e3f4a5b'
const version = (n: number) => ({
	id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
	version: n,
	hash: 'a'.repeat(64),
	data: { n },
	createdAt: '2026-11-28T00:00:00.000Z',
	isCurrent: n === 250
})

const team = (from: number, to: number) => ({
	id: '1b6f8f9e-1c2d-4e5f-8a9b-0c1d2e3f4a5b',
	name: 'Big',
	slug: 'big',
	createdAt: '2026-11-28T00:00:00.000Z',
	userRole: 'member',
	members: Array.from({ length: to - from }, (_, i) => ({
		id: `00000000-0000-4000-8000-${String(from + i).padStart(12, '0')}`,
		userId: `10000000-0000-4000-8000-${String(from + i).padStart(12, '0')}`,
		email: `m${from + i}@example.com`,
		username: `m${from + i}`,
		role: 'member',
		joinedAt: '2026-11-28T00:00:00.000Z'
	}))
})

const requests: string[] = []
const elsewhere: string[] = []
const other = Bun.serve({
	port: 0,
	fetch(request) {
		elsewhere.push(request.headers.get('authorization') ?? '')
		return Response.json([])
	}
})
const server = Bun.serve({
	port: 0,
	fetch(request) {
		const url = new URL(request.url)
		requests.push(url.pathname + url.search)
		if (url.pathname === '/api/teams/big') return Response.json(team(0, 100))
		if (url.pathname === '/api/teams/big/members') {
			const from = Number(url.searchParams.get('after') ?? 0)
			const page = team(from, Math.min(from + 60, 130)).members
			const headers: Record<string, string> =
				from + 60 < 130 ? { link: `</api/teams/big/members?limit=60&after=${from + 60}>; rel="next"` } : {}
			return Response.json(page, { headers })
		}
		if (url.pathname.endsWith('/looping/versions'))
			return Response.json([], { headers: { link: `<${url.pathname}>; rel="next"` } })
		if (url.pathname.endsWith('/hostile/versions'))
			return Response.json([version(1)], { headers: { link: `<${other.url}api/x>; rel="next"` } })
		// Pages of at most 100, whatever was asked: a server may give less than the limit.
		const limit = Math.min(Number(url.searchParams.get('limit') ?? 100), 100)
		const before = Number(url.searchParams.get('before') ?? 251)
		const page = Array.from({ length: Math.min(limit, before - 1) }, (_, i) => version(before - 1 - i))
		const last = page.at(-1)?.version ?? 1
		const headers: Record<string, string> =
			last > 1 ? { link: `</api/configs/${CONFIG}/versions?limit=${limit}&before=${last}>; rel="next"` } : {}
		return Response.json(page, { headers })
	}
})
afterAll(() => {
	server.stop(true)
	other.stop(true)
})

describe('the client follows the pages of a list (docs/api.md, "Pages")', () => {
	test('history past one page: 250 versions in three requests, highest first, each once', async () => {
		requests.length = 0
		const api = createApi(server.url.href, 'cs_key')
		const versions = await api.configs.versions(CONFIG, { limit: 1000 })
		expect(versions.map((v) => v.version)).toEqual(Array.from({ length: 250 }, (_, i) => 250 - i))
		expect(requests).toHaveLength(3)
		const many = await api.configs.versions(CONFIG, { limit: 1500 })
		expect(many).toHaveLength(250)
		const few = await api.configs.versions(CONFIG, { limit: 20 })
		expect(few.map((v) => v.version)).toEqual(Array.from({ length: 20 }, (_, i) => 250 - i))
	})

	test('asks for no more than it needs: 150 of 250 with pages of 100 stops after the second page', async () => {
		requests.length = 0
		const api = createApi(server.url.href, 'cs_key')
		expect((await api.configs.versions(CONFIG, { limit: 150 })).map((v) => v.version)).toEqual(
			Array.from({ length: 150 }, (_, i) => 250 - i)
		)
		expect(requests).toHaveLength(2)
		requests.length = 0
		expect(await api.configs.versions(CONFIG, {})).toHaveLength(100)
		expect(requests).toHaveLength(1)
	})

	test('a next link to another host is not followed, so the key stays with its server', async () => {
		const api = createApi(server.url.href, 'cs_key')
		const versions = await api.configs.versions('hostile', { limit: 10 })
		expect(versions).toHaveLength(1)
		expect(elsewhere).toEqual([])
		expect(nextPage(`<${other.url}api/x>; rel="next"`)).toBeUndefined()
		expect(nextPage('</api/configs/x/versions?before=3>; rel="next"')).toBe('/api/configs/x/versions?before=3')
		expect(nextPage('</api/x>; rel="prev"')).toBeUndefined()
	})

	test('a team of 130: its own answer carries 100, the client reads all 130 from the members pages', async () => {
		const api = createApi(server.url.href, 'cs_key')
		const detail = await api.teams.get('big')
		expect(detail.members.map((m) => m.username)).toEqual(Array.from({ length: 130 }, (_, i) => `m${i}`))
	})

	test('an empty page that links to itself ends the list instead of looping', async () => {
		const api = createApi(server.url.href, 'cs_key')
		expect(await api.configs.versions('looping', { limit: 1000 })).toEqual([])
	})
})
