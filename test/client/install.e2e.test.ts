import { describe, expect, test } from 'bun:test'
import { readFileSync, realpathSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { emptyDir, serversOfThisFile, startServer } from '../support/harness'
import { login, machine, serverWithUsers } from '../support/client/machines'
import { clientVersionLine } from '../support/build'

/**
 * docs/client.md: a teammate needs nothing but the server's URL and Node.
 * `npm install -g <server>/download/cfgsync.tgz` into an empty prefix
 * installs `cfgsync`, which runs under node and syncs against that server.
 */

const servers = serversOfThisFile()
const root = resolve(import.meta.dir, '..', '..')

describe('the npm package served by the compiled server', () => {
	test('npm install -g from /download/cfgsync.tgz installs a cfgsync that runs on Node', async () => {
		const { server, ada } = await serverWithUsers(servers)
		const response = await fetch(`${server.url}/download/cfgsync.tgz`)
		expect(response.status).toBe(200)
		const served = new Uint8Array(await response.arrayBuffer())
		// The embedded package is the one npm run build made, byte for byte.
		expect(Buffer.from(served).equals(readFileSync(join(root, 'dist', 'cfgsync.tgz')))).toBe(true)
		expect(served.length).toBeLessThan(500 * 1024)
		const page = await (await fetch(`${server.url}/download`)).text()
		expect(page).toContain(`npm install -g ${server.url}/download/cfgsync.tgz`)
		expect(page).toContain(new Bun.CryptoHasher('sha256').update(served).digest('hex'))

		const prefix = emptyDir()
		const install = Bun.spawnSync(
			[
				'npm',
				'install',
				'-g',
				'--prefix',
				prefix,
				'--no-audit',
				'--no-fund',
				'--loglevel=error',
				`${server.url}/download/cfgsync.tgz`
			],
			{
				cwd: prefix,
				env: { ...process.env, npm_config_cache: join(prefix, '.npm-cache'), npm_config_update_notifier: 'false' },
				stdout: 'pipe',
				stderr: 'pipe'
			}
		)
		expect({
			code: install.exitCode,
			err: install.stderr.toString().replace(/npm warn Unknown user config.*\n/g, '')
		}).toEqual({ code: 0, err: '' })
		const bin = join(prefix, 'bin', 'cfgsync')
		expect(realpathSync(bin)).toEndWith(join('lib', 'node_modules', 'cfgsync', 'cfgsync.mjs'))
		const version = Bun.spawnSync(['node', bin, '--version'])
		expect(version.stdout.toString()).toBe(clientVersionLine())
		// Run through its shebang (#!/usr/bin/env node), as a shell would.
		expect(Bun.spawnSync([bin, '--version'], { env: { PATH: process.env.PATH ?? '' } }).stdout.toString()).toBe(
			clientVersionLine()
		)

		const m = machine(server, { command: ['node', bin] })
		expect((await login(m, ada, 'npm-installed')).code).toBe(0)
		m.file('.codex/AGENTS.md', 'installed from the server\n')
		expect((await m.cfgsync(['push', 'codex'])).code).toBe(0)
		expect((await m.cfgsync(['whoami'])).stdout).toContain('device "npm-installed"')
	}, 120_000)

	test('GET /download needs no key and carries the HTML headers; a path out of the downloads directory is 404', async () => {
		const dir = emptyDir()
		const server = await startServer(dir, { args: ['--downloads-dir', join(dir, 'none-yet')] })
		servers.push(server)
		const page = await fetch(`${server.url}/download`)
		expect(page.status).toBe(200)
		expect(page.headers.get('content-security-policy')).toContain("default-src 'self'")
		expect(page.headers.get('x-content-type-options')).toBe('nosniff')
		// No standalone binaries here: the page offers the npm package, and tells no end user to build any.
		const text = await page.text()
		expect(text).toContain('npm install -g')
		expect(text).not.toContain('build:release')
		expect(server.log()).toContain('the downloads directory does not exist')
		for (const path of ['/download/..%2F..%2Fetc%2Fpasswd', '/download/..%2Fmaster.key', '/download/nothing']) {
			expect({ path, status: (await fetch(`${server.url}${path}`)).status }).toEqual({ path, status: 404 })
		}
		// `%2e%2e` is a dot segment: the URL itself becomes `/`, the web application's first page (sign-in, or
		// "Set up this server" while it has no user), never a file.
		const dots = await fetch(`${server.url}/download/%2e%2e`)
		expect(dots.url).toBe(`${server.url}/`)
		expect(await dots.text()).toMatch(/<title>(Sign in|Set up this server) · cfgsync<\/title>/)
	}, 60_000)
})
