import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { migrations } from '../../../src/server/store/sqlite/migrations'
import { api, BINARY, emptyDir, run, serversOfThisFile, startServer, userWithKey } from '../../support/harness'

const servers = serversOfThisFile()
const mode = (path: string) => statSync(path).mode & 0o777

describe('security hardening on the compiled binary', () => {
	test("COMMAND --help prints that command's usage and exits 0, touching nothing", async () => {
		const dir = emptyDir()
		for (const [args, expected] of [
			[['serve', '--help'], '--workers'],
			[['--port', '9', '--help'], '--workers'],
			[['user', 'add', '--help'], '--email E --username U'],
			[['user', 'passwd', '-h'], '--revoke-keys'],
			[['user', 'unlock', '--help'], 'failed-login'],
			[['user', 'revoke-keys', '--help'], 'every API key'],
			[['user', '--help'], 'user add|list'],
			[['key', 'issue', '--help'], '--device NAME'],
			[['backup', '--help'], 'symbolic link'],
			[['purge', '--help'], '30 days']
		] as const) {
			const result = await run(dir, [...args])
			expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: '' })
			expect(result.stdout).toContain(expected)
		}
		expect(existsSync(join(dir, 'data'))).toBe(false)
	})

	test('user add that finds no database says so on stderr, naming the path, before creating one; user list creates none', async () => {
		const dir = emptyDir()
		const list = await run(dir, ['user', 'list'])
		expect(list.code).toBe(1)
		expect(list.stderr).toContain(`no database at ${join(dir, 'data', 'cfgsync.db')}`)
		expect(existsSync(join(dir, 'data'))).toBe(false)
		const first = await run(dir, [
			'user',
			'add',
			'--email',
			'a@example.test',
			'--username',
			'a',
			'--password',
			'password-of-a'
		])
		expect(first.code).toBe(0)
		expect(first.stderr).toContain(`no database at ${join(dir, 'data', 'cfgsync.db')}: creating a new one`)
		const second = await run(dir, ['user', 'list'])
		expect(second.stderr).toBe('')
	})

	test('database, WAL, shared-memory file and backups are 0600 in a 0755 directory under umask 022; backups refuse links and existing files', async () => {
		const dir = emptyDir()
		const data = join(dir, 'data')
		mkdirSync(data, { mode: 0o755 })
		const proc = Bun.spawn(['sh', '-c', `umask 022; exec "${BINARY}" serve --port 0 --host 127.0.0.1`], {
			cwd: dir,
			env: { PATH: process.env.PATH ?? '' },
			stdout: 'pipe',
			stderr: 'pipe'
		})
		let output = ''
		void (async () => {
			for await (const chunk of proc.stdout) output += new TextDecoder().decode(chunk)
		})()
		const deadline = Date.now() + 15_000
		while (!/"msg":"listening"/.test(output)) {
			if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`no start: ${output}`)
			await Bun.sleep(20)
		}
		const url = `http://127.0.0.1:${output.match(/127\.0\.0\.1:(\d+)/)?.[1]}`
		servers.push({
			proc: proc as never,
			url,
			dir,
			log: () => output,
			errors: () => '',
			stop: async (signal = 'SIGTERM') => (proc.kill(signal), proc.exited)
		})
		const alice = await userWithKey(dir, 'alice')
		expect(
			(
				await fetch(`${url}/api/configs`, {
					method: 'POST',
					headers: { authorization: `Bearer ${alice.key}`, 'content-type': 'application/json' },
					body: '{"data":{"a":1}}'
				})
			).status
		).toBe(201)
		for (const file of ['cfgsync.db', 'cfgsync.db-wal', 'cfgsync.db-shm', 'master.key'])
			expect({ file, mode: mode(join(data, file)) }).toEqual({ file, mode: 0o600 })

		const backup = join(dir, 'copy.db')
		const made = Bun.spawnSync(['sh', '-c', `umask 022; exec "${BINARY}" backup "${backup}"`], {
			cwd: dir,
			env: { PATH: process.env.PATH ?? '' }
		})
		expect(made.exitCode).toBe(0)
		expect(mode(backup)).toBe(0o600)

		// A link planted where the backup goes is refused, and its target is never created or written.
		const target = join(dir, 'elsewhere.db')
		const link = join(dir, 'link.db')
		symlinkSync(target, link)
		const throughLink = await run(dir, ['backup', link])
		expect(throughLink.code).toBe(1)
		expect(throughLink.stderr).toContain('already exists')
		expect(existsSync(target)).toBe(false)
		expect(lstatSync(link).isSymbolicLink()).toBe(true)
		const precious = join(dir, 'precious.txt')
		writeFileSync(precious, 'keep me')
		expect((await run(dir, ['backup', precious])).code).toBe(1)
		expect(readFileSync(precious, 'utf8')).toBe('keep me')
		// Nothing half-written is left beside the target.
		expect(
			Bun.spawnSync(['sh', '-c', `ls "${dir}" | grep -c partial || true`])
				.stdout.toString()
				.trim()
		).toBe('0')
	})

	test('an existing 0644 database from an older version is tightened to 0600 at start', async () => {
		const dir = emptyDir()
		const data = join(dir, 'data')
		mkdirSync(data, { mode: 0o755 })
		const old = new Database(join(data, 'cfgsync.db'))
		old.run('CREATE TABLE unrelated (x)')
		old.close()
		Bun.spawnSync(['chmod', '0644', join(data, 'cfgsync.db')])
		const server = await startServer(dir)
		servers.push(server)
		expect(mode(join(data, 'cfgsync.db'))).toBe(0o600)
	})

	test('two first starts at once with different master keys: exactly one serves, the other refuses (many rounds)', async () => {
		const rounds = 20
		for (let round = 0; round < rounds; round++) {
			const dir = emptyDir()
			const start = (key: string) =>
				Bun.spawn([BINARY, 'serve', '--port', '0', '--host', '127.0.0.1'], {
					cwd: dir,
					env: { PATH: process.env.PATH ?? '', CFGSYNC_MASTER_KEY: key },
					stdout: 'pipe',
					stderr: 'pipe'
				})
			const keys = [randomBytes(32).toString('base64'), randomBytes(32).toString('base64')]
			const procs = keys.map(start)
			const outcomes = await Promise.all(
				procs.map(async (proc) => {
					const reader = (async () => {
						let text = ''
						for await (const chunk of proc.stdout) {
							text += new TextDecoder().decode(chunk)
							if (text.includes('"msg":"listening"')) return text
						}
						return text
					})()
					const result = await Promise.race([
						reader.then((text) => ({ listening: text.includes('"msg":"listening"') })),
						proc.exited.then(() => ({ listening: false }))
					])
					return result.listening ? 'serving' : `exited ${await proc.exited}: ${await new Response(proc.stderr).text()}`
				})
			)
			for (const proc of procs) proc.kill('SIGKILL')
			await Promise.all(procs.map((proc) => proc.exited))
			const serving = outcomes.filter((outcome) => outcome === 'serving')
			expect({ round, serving: serving.length }).toEqual({ round, serving: 1 })
			const refused = outcomes.find((outcome) => outcome !== 'serving') as string
			expect(refused).toMatch(/^exited 1: cfgsync-server: the master key does not match the database/)
		}
		console.log(`[security] first-start race: ${rounds} rounds, one server each time`)
	})

	test('unlock, revoke-keys and passwd --revoke-keys work while the server runs', async () => {
		const dir = emptyDir()
		const server = await startServer(dir)
		servers.push(server)
		const alice = await userWithKey(dir, 'alice')
		for (let i = 0; i < 10; i++)
			await api(server, 'POST', '/api/auth/login', undefined, {
				login: 'alice',
				password: 'wrong-password',
				device: 'x'
			})
		expect(
			(
				await api(server, 'POST', '/api/auth/login', undefined, {
					login: 'alice',
					password: alice.password,
					device: 'x'
				})
			).status
		).toBe(429)
		const unlocked = await run(dir, ['user', 'unlock', 'alice'])
		expect(unlocked).toMatchObject({ code: 0, stdout: 'cleared 10 failed logins of alice; they can log in again\n' })
		const second = await api(server, 'POST', '/api/auth/login', undefined, {
			login: 'alice',
			password: alice.password,
			device: 'laptop'
		})
		expect(second.status).toBe(201)

		expect((await run(dir, ['user', 'revoke-keys', 'alice'])).stdout).toBe(
			'revoked 2 keys and 0 web sessions of alice\n'
		)
		for (const key of [alice.key, second.body.apiKey])
			expect((await api(server, 'GET', '/api/me', key)).status).toBe(401)

		const third = await api(server, 'POST', '/api/auth/login', undefined, {
			login: 'alice',
			password: alice.password,
			device: 'desk'
		})
		const kept = await run(dir, ['user', 'passwd', 'alice', '--password-stdin'], { stdin: 'a brand new password\n' })
		expect(kept.stdout).toBe('password changed\n')
		expect((await api(server, 'GET', '/api/me', third.body.apiKey)).status).toBe(200)
		const revoked = await run(dir, ['user', 'passwd', 'alice', '--password-stdin', '--revoke-keys'], {
			stdin: 'another new password\n'
		})
		expect(revoked.stdout).toBe('password changed; 1 key revoked\n')
		expect((await api(server, 'GET', '/api/me', third.body.apiKey)).status).toBe(401)
		const blank = await run(dir, ['user', 'passwd', 'alice', '--password-stdin'], { stdin: '          \n' })
		expect(blank.code).toBe(1)
		expect(blank.stderr).toContain('only spaces')
	})

	test('the deprecated CFGSYNC_TRUST_PROXY still works, with a warning; a bad CFGSYNC_TRUSTED_PROXIES stops the start', async () => {
		const dir = emptyDir()
		const server = await startServer(dir, { env: { CFGSYNC_TRUST_PROXY: '1' } })
		servers.push(server)
		expect(server.log()).toContain('CFGSYNC_TRUST_PROXY is deprecated')
		await userWithKey(dir, 'alice')
		await api(
			server,
			'POST',
			'/api/auth/login',
			undefined,
			{ login: 'alice', password: 'wrong-password', device: 'x' },
			{ 'x-forwarded-for': '198.51.100.4' }
		)
		await Bun.sleep(50)
		expect(server.log()).toContain('"msg":"login failed","address":"198.51.100.4"')

		const bad = await run(emptyDir(), ['serve', '--port', '0'], { env: { CFGSYNC_TRUSTED_PROXIES: 'my-proxy' } })
		expect(bad.code).toBe(1)
		expect(bad.stderr).toContain(
			'invalid setting CFGSYNC_TRUSTED_PROXIES: "my-proxy" is not an IP address or CIDR range'
		)
	})

	test('invitations end to end: the invitee accepts; headers on the wire', async () => {
		const dir = emptyDir()
		const server = await startServer(dir)
		servers.push(server)
		const owner = await userWithKey(dir, 'owner')
		const guest = await userWithKey(dir, 'guest')
		expect((await api(server, 'POST', '/api/teams', owner.key, { name: 'Crew' })).status).toBe(201)
		const invited = await api(server, 'POST', '/api/teams/crew/members', owner.key, { login: 'guest', role: 'member' })
		expect(invited.body).toMatchObject({ teamSlug: 'crew', username: 'guest', status: 'invited' })
		expect((await api(server, 'GET', '/api/teams/crew', guest.key)).status).toBe(404)
		expect((await api(server, 'POST', '/api/invitations/crew/accept', guest.key)).status).toBe(200)
		expect((await api(server, 'GET', '/api/teams/crew', guest.key)).body.userRole).toBe('member')

		const docs = await fetch(`${server.url}/docs`)
		expect(docs.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
		expect(docs.headers.get('x-content-type-options')).toBe('nosniff')
		const login = await api(server, 'POST', '/api/auth/login', undefined, {
			login: 'guest',
			password: guest.password,
			device: 'x'
		})
		expect(login.headers.get('cache-control')).toBe('no-store')
		const form = await fetch(`${server.url}/api/auth/login`, {
			method: 'POST',
			body: 'login=guest&password=x&device=y',
			headers: { 'content-type': 'application/x-www-form-urlencoded' }
		})
		expect(form.status).toBe(415)
	})

	test('the database carries every embedded migration', async () => {
		const dir = emptyDir()
		servers.push(await startServer(dir))
		const db = new Database(join(dir, 'data', 'cfgsync.db'), { readonly: true })
		expect(db.query('SELECT count(*) AS n FROM __drizzle_migrations').get()).toEqual({ n: migrations.length })
		db.close()
	})
})
