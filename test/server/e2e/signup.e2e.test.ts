// docs/web.md first start and sign-up on the compiled binary: `serve` on an empty data directory
// prints the setup address once, and `invite create` prints a sign-up link that works.
import { describe, expect, test } from 'bun:test'
import { emptyDir, run, serversOfThisFile, startServer, type Server } from '../../support/harness'

const servers = serversOfThisFile()

type LogLine = { msg: string; setup?: string; hint?: string }
const lines = (server: Server): LogLine[] =>
	server
		.log()
		.split('\n')
		.filter((line) => line.startsWith('{'))
		.map((line) => JSON.parse(line) as LogLine)

/** The setup lines the server printed, once it has printed one (or after a short wait, none). */
async function setupLines(server: Server, expectOne = true): Promise<LogLine[]> {
	const deadline = Date.now() + (expectOne ? 10_000 : 1_500)
	while (Date.now() < deadline) {
		const found = lines(server).filter((line) => line.setup !== undefined)
		if (found.length > 0 && expectOne) return found
		await Bun.sleep(50)
	}
	return lines(server).filter((line) => line.setup !== undefined)
}

const form = (fields: Record<string, string>) => ({
	method: 'POST',
	redirect: 'manual' as const,
	headers: { 'content-type': 'application/x-www-form-urlencoded' },
	body: new URLSearchParams(fields).toString()
})

describe('first start and sign-up on the compiled binary (docs/web.md)', () => {
	test('an empty data directory: the setup address is printed once, with a hint without CFGSYNC_PUBLIC_URL; it makes the first admin and then dies', async () => {
		const dir = emptyDir()
		const server = await startServer(dir, { args: ['--host', '0.0.0.0'] })
		servers.push(server)
		const printed = await setupLines(server)
		expect(printed.length).toBe(1)
		const port = new URL(server.url).port
		const setup = printed[0]?.setup as string
		// The listening address, 0.0.0.0 shown as 127.0.0.1, and a hint to set the variable.
		expect(setup).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/setup/[A-Za-z0-9_-]{43}$`))
		expect(printed[0]?.hint).toContain('CFGSYNC_PUBLIC_URL')
		expect(server.log().split(setup).length - 1).toBe(1)
		// For people, the same address as a plain-text line; stdout stays JSON lines only (docs/operations.md).
		expect(server.errors()).toContain(`Open this address in a browser to create the first admin: ${setup} `)
		expect(server.errors()).toContain('cfgsync-server setup-link')
		for (const line of server.log().split('\n').filter(Boolean)) expect(line).toStartWith('{')
		// Its `/` says where that address is, to whoever opens it.
		expect(await (await fetch(server.url)).text()).toContain('Set up this server')

		const page = await fetch(setup)
		expect(page.status).toBe(200)
		expect(await page.text()).toContain('Create the first admin')
		expect((await fetch(`${server.url}/setup`)).status).toBe(404)

		const made = await fetch(setup, form({ email: 'ada@example.test', username: 'ada', password: 'ada-password-1' }))
		expect(made.status).toBe(303)
		expect(made.headers.get('location')).toBe('/admin')
		expect(made.headers.get('set-cookie')).toContain('cfgsync_notice=first-admin')
		const cookie = /cfgsync_session=([^;]+)/.exec(made.headers.get('set-cookie') ?? '')?.[1]
		const admin = await fetch(`${server.url}/admin`, { headers: { cookie: `cfgsync_session=${cookie}` } })
		expect(admin.status).toBe(200)
		expect(await admin.text()).toContain('Invite people')
		const again = await fetch(setup)
		expect(again.status).toBe(410)
		expect(await again.text()).not.toContain('name="password"')

		// The next start finds a user: no setup address.
		await server.stop()
		const next = await startServer(dir)
		servers.push(next)
		expect(await setupLines(next, false)).toEqual([])
		expect(next.errors()).not.toContain('/setup/')
		const list = await run(dir, ['user', 'list', '--json'])
		expect(JSON.parse(list.stdout)).toMatchObject([{ username: 'ada', isAdmin: true }])
	})

	test('with CFGSYNC_PUBLIC_URL the setup address starts with it, without a hint', async () => {
		const dir = emptyDir()
		const server = await startServer(dir, { env: { CFGSYNC_PUBLIC_URL: 'https://cfgsync.example.test' } })
		servers.push(server)
		const printed = await setupLines(server)
		expect(printed.length).toBe(1)
		expect(printed[0]?.setup).toMatch(/^https:\/\/cfgsync\.example\.test\/setup\/[A-Za-z0-9_-]{43}$/)
		expect(printed[0]?.hint).toBeUndefined()
		const path = new URL(printed[0]?.setup as string).pathname
		expect((await fetch(`${server.url}${path}`)).status).toBe(200)
	})

	test('`invite create` prints a working sign-up link, on its plan, for its uses', async () => {
		const dir = emptyDir()
		const env = { CFGSYNC_PUBLIC_URL: 'https://cfgsync.example.test' }
		const server = await startServer(dir, { env })
		servers.push(server)
		const invite = await run(dir, ['invite', 'create', '--plan', 'pro', '--uses', '2', '--days', '3'], { env })
		expect(invite.code).toBe(0)
		const link = invite.stdout.trim()
		expect(link).toMatch(/^https:\/\/cfgsync\.example\.test\/join\/[A-Za-z0-9_-]{43}$/)
		expect(invite.stderr).toContain('2 accounts on the pro plan, good for 3 days')
		const path = new URL(link).pathname
		const page = await fetch(`${server.url}${path}`)
		expect(page.status).toBe(200)
		expect(await page.text()).toContain('Create your account')
		for (const name of ['zoe', 'yan']) {
			const made = await fetch(
				`${server.url}${path}`,
				form({ email: `${name}@example.test`, username: name, password: `${name}-password-1` })
			)
			expect(made.status).toBe(303)
			expect(made.headers.get('set-cookie')).toContain('cfgsync_session=')
		}
		const used = await fetch(`${server.url}${path}`)
		expect(used.status).toBe(410)
		expect(await used.text()).toContain('used up')
		const list = JSON.parse((await run(dir, ['user', 'list', '--json'])).stdout) as { username: string; plan: string }[]
		expect(list.map((user) => [user.username, user.plan]).sort()).toEqual([
			['yan', 'pro'],
			['zoe', 'pro']
		])
		// The new people sign in with what they chose, like anyone.
		const login = await fetch(`${server.url}/api/auth/login`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ login: 'zoe', password: 'zoe-password-1', device: 'laptop' })
		})
		expect(login.status).toBe(201)
	})

	test('`invite create` without CFGSYNC_PUBLIC_URL uses the listening address and says to set it; bad values are refused', async () => {
		const dir = emptyDir()
		const env = { CFGSYNC_PORT: '9123' }
		const invite = await run(dir, ['invite', 'create'], { env })
		expect(invite.code).toBe(0)
		expect(invite.stdout.trim()).toMatch(/^http:\/\/127\.0\.0\.1:9123\/join\/[A-Za-z0-9_-]{43}$/)
		expect(invite.stderr).toContain('1 account on the team plan, good for 7 days')
		expect(invite.stderr).toContain('CFGSYNC_PUBLIC_URL')
		for (const args of [
			['--plan', 'gold'],
			['--uses', '0'],
			['--uses', 'two'],
			['--days', '9999']
		]) {
			const refused = await run(dir, ['invite', 'create', ...args], { env })
			expect({ args, code: refused.code === 0 ? 0 : 'refused' }).toEqual({ args, code: 'refused' })
			expect(refused.stdout).toBe('')
			expect(refused.stderr.trim().split('\n').length).toBe(1)
		}
		const help = await run(dir, ['invite', 'create', '--help'])
		expect(help.code).toBe(0)
		expect(help.stdout).toContain('--uses N')
	})
})
