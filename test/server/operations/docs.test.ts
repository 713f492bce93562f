import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'

/** Issue 37.8: what docs/operations.md tells operators about upgrades and bad days, each held by a test. */
const OPERATIONS = readFileSync(resolve(import.meta.dir, '..', '..', '..', 'docs', 'operations.md'), 'utf8')
const section = (heading: string) => {
	const start = OPERATIONS.indexOf(`\n## ${heading}\n`)
	expect(start).toBeGreaterThan(-1)
	const end = OPERATIONS.indexOf('\n## ', start + 4)
	return OPERATIONS.slice(start, end === -1 ? undefined : end)
}

test('upgrading and rolling back: what is backed up, how to go back, what a mixed fleet may do', () => {
	const upgrade = section('Upgrading and rolling back')
	// upgrades.test.ts and upgrade.e2e.test.ts hold these.
	expect(upgrade).toContain('pre-upgrade-<old schema>-<time>.db')
	expect(upgrade).toContain('newer than this binary')
	expect(upgrade).toContain('cfgsync-server restore')
	expect(upgrade).toContain('pg_dump')
	expect(upgrade).toContain('A mixed fleet')
	// rekey-fleet.test.ts and rekey.e2e.test.ts
	expect(upgrade).toContain('`rekey` refuses to re-encrypt anything')
	expect(OPERATIONS).toContain('**Roll call:** before anything is re-encrypted')
	// build-identity.test.ts
	expect(upgrade).toContain('cfgsync_build_info{version,commit,schema}')
})

test('the outage behaviour (outage.test.ts, bad-days.e2e.test.ts)', () => {
	const outage = section('When the database stops answering')
	expect(outage).toContain('one `error` line per\n10 s')
	expect(outage).toContain('under\ntheir route pattern')
	expect(outage).toContain('Every line on stdout is\nJSON')
})

test('the root and ownership rule, the commands that create a database, SIGHUP (root-ownership, admin-commands, bad-days)', () => {
	const admin = section('Admin commands')
	expect(admin).toContain("owned by the data\ndirectory's owner")
	expect(admin).toContain('Only `serve`, `user add`, `invite create` and `restore` create a database')
	expect(admin).toContain('`SIGHUP` is logged and ignored')
	expect(admin).toContain('`setup-link [--public-url URL]`')
})
