// The systemd unit in docs/deploy/ is the one docs/deploy.md shows, systemd accepts it, and its
// sandbox scores at most 4.0 in `systemd-analyze security` (the unit the README once showed: 8.5).
// Without systemd-analyze these checks are skipped with one line, except under CI=true, where .ci/run
// installs systemd and a missing systemd-analyze is a failure.
import { describe, expect, test } from 'bun:test'
import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { tempDir } from '../../support/temp'

const root = resolve(import.meta.dir, '../../..')
const UNIT = join(root, 'docs/deploy/cfgsync.service')
const ENV_EXAMPLE = join(root, 'docs/deploy/cfgsync.env.example')
const THRESHOLD = 4.0
const unit = readFileSync(UNIT, 'utf8')

const analyze = Bun.which('systemd-analyze')
const CI = process.env.CI === 'true'
if (!analyze && !CI)
	console.log('skipped the systemd unit checks: systemd-analyze is not installed (apt-get install systemd)')

/** The values of one key in the [Service] section, in order (a key may repeat). */
function settings(key: string): string[] {
	return [...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((match) => match[1]!.trim())
}

function analyzeRun(args: string[]) {
	const result = Bun.spawnSync([analyze!, ...args], {
		env: { ...process.env, SYSTEMD_COLORS: '0', SYSTEMD_PAGER: 'cat' }
	})
	return { code: result.exitCode, output: `${result.stdout.toString()}${result.stderr.toString()}` }
}

describe('the shipped systemd unit', () => {
	test('docs/deploy.md shows exactly docs/deploy/cfgsync.service', () => {
		const doc = readFileSync(join(root, 'docs/deploy.md'), 'utf8')
		const block = doc.match(/```ini\n(# \/etc\/systemd\/system\/cfgsync\.service[\s\S]*?)```/)
		expect(block?.[1]).toBe(unit)
	})

	test('it may write the data directory and the backup directory it names, and keeps what the server needs', () => {
		const writable = settings('ReadWritePaths').flatMap((value) => value.split(/\s+/))
		const dataDir = settings('ExecStart')[0]?.match(/--data-dir (\S+)/)?.[1]
		const backupDir = settings('Environment')
			.join(' ')
			.match(/CFGSYNC_BACKUP_DIR=(\S+)/)?.[1]
		expect(dataDir).toBe('/var/lib/cfgsync')
		expect(backupDir).toBe('/var/backups/cfgsync')
		expect(writable).toContain(dataDir!)
		expect(writable).toContain(backupDir!)
		expect(settings('StateDirectory')).toEqual(['cfgsync'])
		expect(settings('User')).toEqual(['cfgsync'])
		expect(settings('EnvironmentFile')).toEqual(['/etc/cfgsync/cfgsync.env'])
		// Listening on TCP, PostgreSQL's Unix socket; Bun's JIT needs writable+executable pages.
		expect(settings('RestrictAddressFamilies').join(' ').split(/\s+/).sort()).toEqual([
			'AF_INET',
			'AF_INET6',
			'AF_UNIX'
		])
		expect(settings('MemoryDenyWriteExecute')).toEqual([])
	})

	test('the example environment file is KEY=value lines that systemd and the shell read alike', () => {
		const lines = readFileSync(ENV_EXAMPLE, 'utf8')
			.split('\n')
			.filter((line) => line.trim() !== '' && !line.startsWith('#'))
		expect(lines.length).toBeGreaterThan(0)
		for (const line of lines) expect(line).toMatch(/^CFGSYNC_[A-Z_]+=("[^"$`\\]*"|[^\s"'$`\\]*)$/)
		for (const line of readFileSync(ENV_EXAMPLE, 'utf8')
			.split('\n')
			.filter((line) => /^#CFGSYNC_[A-Z_]+=/.test(line))) {
			expect(line.slice(1)).toMatch(/^CFGSYNC_[A-Z_]+=("[^"$`\\]*"|[^\s"'$`\\]*)$/)
		}
	})
})

describe.skipIf(!analyze && !CI)('systemd-analyze on the shipped unit', () => {
	test('systemd-analyze is installed', () => {
		if (!analyze)
			throw new Error(
				'systemd-analyze is not installed, and under CI=true the unit must be checked (apt-get install systemd)'
			)
	})

	test.skipIf(!analyze)('systemd-analyze verify finds nothing to say about it', () => {
		// verify also checks that ExecStart's program exists: a copy points it at one that does. It exits 0
		// on unknown keys and bad values (it only warns), so any line naming the unit is a failure.
		const dir = tempDir('systemd')
		const copy = join(dir, 'cfgsync.service')
		writeFileSync(copy, unit.replaceAll('/usr/local/bin/cfgsync-server', process.execPath))
		const { code, output } = analyzeRun(['verify', '--man=no', copy])
		expect(output.split('\n').filter((line) => line.includes('cfgsync'))).toEqual([])
		expect(code).toBe(0)
	})

	test.skipIf(!analyze)(
		`its sandbox scores at most ${THRESHOLD.toFixed(1)} in systemd-analyze security --offline=yes`,
		() => {
			// --threshold counts in tenths (the scale behind the printed 0.0–10.0): 40 is 4.0, and 4.0 itself is refused.
			const { code, output } = analyzeRun(['security', '--offline=yes', `--threshold=${THRESHOLD * 10}`, UNIT])
			const exposure = Number(output.match(/Overall exposure level for cfgsync\.service: (\d+(?:\.\d+)?)/)?.[1])
			if (!(exposure <= THRESHOLD)) console.log(output)
			expect(exposure).toBeLessThanOrEqual(THRESHOLD)
			expect(code).toBe(0)
		}
	)
})
