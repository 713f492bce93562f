import { describe, expect, test } from 'bun:test'
import { join, resolve } from 'node:path'
import packageJson from '../../../package.json' with { type: 'json' }
import { createApp } from '../../../src/server/app'
import { migrations } from '../../../src/server/store/sqlite/migrations'
import { POSTGRES_SCHEMA, SCHEMA } from '../../../src/server/build-info'
import { fastPasswords, testApp } from '../../support/helpers'
import { parsePrometheus } from '../../support/prometheus'

/** docs/operations.md "What every build is": version, commit and schema, alike in --version, build_info and /readyz. */
const ROOT = resolve(import.meta.dir, '..', '..', '..')
const TOKEN = 'metrics-token-for-tests-0123456789'
const headCommit = () =>
	Bun.spawnSync(['git', 'rev-parse', '--short=12', 'HEAD'], { cwd: ROOT }).stdout.toString().trim()

const sourceVersion = (entry: string) =>
	Bun.spawnSync([process.execPath, join(ROOT, entry), '--version'], { cwd: ROOT }).stdout.toString()

describe('what this build is', () => {
	test('cfgsync-server --version names the version, the commit and the schema', () => {
		expect(sourceVersion('src/index.ts')).toMatch(
			new RegExp(
				`^cfgsync-server ${packageJson.version} \\(commit ${headCommit()}(-dirty)?, schema ${migrations.length}\\)\\n$`
			)
		)
	})

	test('cfgsync --version names the version and the commit', () => {
		expect(sourceVersion('src/client/main.ts')).toMatch(
			new RegExp(`^cfgsync ${packageJson.version} \\(commit ${headCommit()}(-dirty)?\\)\\n$`)
		)
	})

	test('cfgsync_build_info and /readyz carry the same version, commit and schema', async () => {
		const t = testApp()
		const app = createApp({
			store: t.store,
			sealer: t.sealer,
			clock: t.clock,
			logger: t.logger,
			passwords: fastPasswords,
			metricsToken: TOKEN
		})
		const printed = sourceVersion('src/index.ts').match(/\(commit (\S+), schema (\d+)\)/)
		const identity = { version: packageJson.version, commit: printed?.[1], schema: printed?.[2] }
		const text = await (
			await app.handle(new Request('http://localhost/metrics', { headers: { authorization: `Bearer ${TOKEN}` } }))
		).text()
		const info = parsePrometheus(text).samples.find((sample) => sample.name === 'cfgsync_build_info')
		expect(info?.labels).toEqual(identity as Record<string, string>)
		const ready = (await (await app.handle(new Request('http://localhost/readyz'))).json()) as Record<string, unknown>
		expect(ready.build).toEqual({ ...identity, schema: Number(identity.schema) })
		t.store.close()
	})

	test('one schema number for both engines: every schema change adds a migration to each', () => {
		expect({ postgres: POSTGRES_SCHEMA, sqlite: SCHEMA }).toEqual({
			postgres: migrations.length,
			sqlite: migrations.length
		})
	})
})
