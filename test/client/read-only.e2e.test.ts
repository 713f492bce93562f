import { describe, expect, test } from 'bun:test'
import { run, serversOfThisFile } from '../support/harness'
import { login, machine, serverWithUsers } from '../support/client/machines'

const servers = serversOfThisFile()

/** docs/api.md "keys with a scope", on the compiled binaries: what a CI job holds reads, and changes nothing. */
describe('read-only keys (cfgsync login --read-only, cfgsync-server key issue --read-only)', () => {
	test('key issue --read-only makes a key that pulls but cannot push; keys shows each key’s scope', async () => {
		const { server, dir, ada } = await serverWithUsers(servers)
		const laptop = machine(server)
		expect((await login(laptop, ada, 'laptop')).code).toBe(0)
		laptop.file('.gemini/settings.json', '{"theme": "GitHub"}\n')
		expect((await laptop.cfgsync(['push', 'gemini-cli'])).code).toBe(0)

		const issued = await run(dir, ['key', 'issue', 'ada', '--device', 'ci', '--read-only'])
		expect(issued.code).toBe(0)
		const key = issued.stdout.trim()
		expect(key).toMatch(/^cs_[0-9a-f]{64}$/)
		const ci = machine(server)
		expect((await ci.cfgsync(['login', '--with-token'], { stdin: `${key}\n` })).code).toBe(0)
		const pulled = await ci.cfgsync(['pull', 'gemini-cli'])
		expect({ code: pulled.code, stderr: pulled.stderr }).toEqual({ code: 0, stderr: '' })
		expect(ci.file('.gemini/settings.json')).toBe('{"theme": "GitHub"}\n')

		ci.file('.gemini/settings.json', '{"theme": "Dracula"}\n')
		const pushed = await ci.cfgsync(['push', 'gemini-cli'])
		expect(pushed.code).not.toBe(0)
		expect(pushed.stderr).toContain('read-only')
		expect((await laptop.cfgsync(['pull', 'gemini-cli'])).code).toBe(0)
		expect(laptop.file('.gemini/settings.json')).toBe('{"theme": "GitHub"}\n')

		const keys = await laptop.cfgsync(['keys'])
		const rows = keys.stdout.split('\n')
		expect(rows[0]).toContain('ACCESS')
		expect(rows.find((row) => row.startsWith('ci '))).toContain('read-only')
		expect(rows.find((row) => row.startsWith('laptop '))).toContain('read-write')
	})

	test('cfgsync login --read-only logs in with a read-only key; --with-token refuses the flag', async () => {
		const { server, ada } = await serverWithUsers(servers)
		const ci = machine(server)
		const logged = await ci.cfgsync(
			['login', '--user', 'ada', '--device', 'runner', '--read-only', '--password-stdin'],
			{
				stdin: `${ada.password}\n`
			}
		)
		expect(logged.code).toBe(0)
		expect(logged.stdout).toContain('read-only')
		const keys = JSON.parse((await ci.cfgsync(['keys', '--json'])).stdout) as {
			device: string
			scope: string
			current: boolean
		}[]
		expect(keys.find((key) => key.current)).toMatchObject({ device: 'runner', scope: 'read-only' })
		const both = await ci.cfgsync(['login', '--with-token', '--read-only'], { stdin: `${ada.key}\n` })
		expect(both.code).toBe(2)
		expect(both.stderr).toContain('--read-only')
	})

	test('key issue refuses a device name with invisible characters', async () => {
		const { dir } = await serverWithUsers(servers)
		const refused = await run(dir, ['key', 'issue', 'ada', '--device', 'ci\u202eexe.jpg'])
		expect(refused.code).not.toBe(0)
		expect(refused.stderr).toContain('--device')
		expect(refused.stdout).toBe('')
	})
})
