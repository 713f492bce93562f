import { beforeAll, describe, expect, test } from 'bun:test'
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { emptyDir, serversOfThisFile, startServer } from '../support/harness'
import { clientVersionLine } from '../support/build'

/**
 * Issue 20 "Installation": `npm run build:release` cross-compiles the client
 * for five platforms with SHA256SUMS; each file has the right executable
 * header for its platform, the Linux ones run (arm64 under qemu-user when it
 * is installed: .ci/run installs it), and the server serves them from
 * --downloads-dir at /download with the same sums. About 15 s once Bun's
 * runtimes for the other platforms are cached (the first run fetches them
 * from the npm registry).
 */

const root = resolve(import.meta.dir, '..', '..')
const release = join(root, 'dist', 'release')
const servers = serversOfThisFile()
const FILES = [
	'cfgsync-linux-x64',
	'cfgsync-linux-arm64',
	'cfgsync-darwin-x64',
	'cfgsync-darwin-arm64',
	'cfgsync-windows-x64.exe'
]
let buildSeconds = 0

beforeAll(() => {
	const started = Date.now()
	const build = Bun.spawnSync([process.execPath, join(root, 'scripts', 'build-release.ts')], {
		cwd: root,
		stdout: 'pipe',
		stderr: 'pipe'
	})
	buildSeconds = (Date.now() - started) / 1000
	if (build.exitCode !== 0)
		throw new Error(`build:release failed: ${build.stderr.toString()}${build.stdout.toString()}`)
	console.log(build.stdout.toString().trim())
}, 300_000)

/** The platform an executable is for, read from its header (ELF, Mach-O, PE). */
function platformOf(file: string): string {
	const bytes = readFileSync(file)
	if (bytes.readUInt32BE(0) === 0x7f454c46) {
		const machine = bytes.readUInt16LE(18)
		return `elf-${machine === 0x3e ? 'x64' : machine === 0xb7 ? 'arm64' : machine.toString(16)}`
	}
	if (bytes.readUInt32LE(0) === 0xfeedfacf) {
		const cpu = bytes.readUInt32LE(4)
		return `macho-${cpu === 0x01000007 ? 'x64' : cpu === 0x0100000c ? 'arm64' : cpu.toString(16)}`
	}
	if (bytes.toString('latin1', 0, 2) === 'MZ') {
		const pe = bytes.readUInt32LE(0x3c)
		if (bytes.toString('latin1', pe, pe + 4) !== 'PE\0\0') return 'mz'
		const machine = bytes.readUInt16LE(pe + 4)
		return `pe-${machine === 0x8664 ? 'x64' : machine.toString(16)}`
	}
	return 'unknown'
}

const sha256 = (file: string) => new Bun.CryptoHasher('sha256').update(readFileSync(file)).digest('hex')

/** qemu-user and an arm64 C library run the arm64 Linux client on this x64 machine. */
const arm64Runner = (): string[] | undefined => {
	if (process.arch === 'arm64') return []
	const qemu = Bun.which('qemu-aarch64') ?? Bun.which('qemu-aarch64-static')
	if (!qemu || !existsSync('/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1')) return undefined
	return [qemu, '-L', '/usr/aarch64-linux-gnu']
}

describe('npm run build:release', () => {
	test('five executables with the right headers and SHA256SUMS', () => {
		console.log(`build:release took ${buildSeconds.toFixed(1)} s`)
		expect(FILES.map((file) => [file, platformOf(join(release, file))])).toEqual([
			['cfgsync-linux-x64', 'elf-x64'],
			['cfgsync-linux-arm64', 'elf-arm64'],
			['cfgsync-darwin-x64', 'macho-x64'],
			['cfgsync-darwin-arm64', 'macho-arm64'],
			['cfgsync-windows-x64.exe', 'pe-x64']
		])
		const sums = readFileSync(join(release, 'SHA256SUMS'), 'utf8')
		expect(sums).toBe(FILES.map((file) => `${sha256(join(release, file))}  ${file}\n`).join(''))
		for (const file of FILES) expect(statSync(join(release, file)).size).toBeGreaterThan(50 * 1024 * 1024)
	})

	test('the Linux executables run', () => {
		const native = process.arch === 'x64' ? 'cfgsync-linux-x64' : 'cfgsync-linux-arm64'
		const x64 = Bun.spawnSync([join(release, native), '--version'])
		expect(x64.stdout.toString()).toBe(clientVersionLine())
		const runner = arm64Runner()
		if (process.arch === 'x64' && runner === undefined) {
			console.warn(
				'cfgsync-linux-arm64 not run: install qemu-user and libc6-arm64-cross (as .ci/run does) to run it here'
			)
			return
		}
		const arm = Bun.spawnSync([...(runner ?? []), join(release, 'cfgsync-linux-arm64'), '--version'])
		expect({ out: arm.stdout.toString(), err: arm.stderr.toString() }).toEqual({
			out: clientVersionLine(),
			err: ''
		})
	}, 60_000)

	test('the server offers them at /download with their sums, and a downloaded one runs', async () => {
		const server = await startServer(emptyDir(), { args: ['--downloads-dir', release] })
		servers.push(server)
		expect(server.log()).toContain(`"msg":"client downloads"`)
		expect(server.log()).toContain(`"files":"cfgsync.tgz ${[...FILES].sort().join(' ')}"`)
		const page = await (await fetch(`${server.url}/download`)).text()
		for (const file of FILES) {
			expect(page).toContain(`<a href="/download/${file}">${file}</a>`)
			expect(page).toContain(sha256(join(release, file)))
		}
		const sums = await (await fetch(`${server.url}/download/SHA256SUMS`)).text()
		for (const line of readFileSync(join(release, 'SHA256SUMS'), 'utf8').trim().split('\n'))
			expect(sums).toContain(`${line}\n`)
		expect(sums).toMatch(/^[0-9a-f]{64} {2}cfgsync\.tgz$/m)
		const native = process.arch === 'x64' ? 'cfgsync-linux-x64' : 'cfgsync-linux-arm64'
		const response = await fetch(`${server.url}/download/${native}`)
		expect(response.headers.get('content-disposition')).toBe(`attachment; filename="${native}"`)
		const downloaded = join(emptyDir(), 'cfgsync')
		writeFileSync(downloaded, new Uint8Array(await response.arrayBuffer()))
		chmodSync(downloaded, 0o755)
		expect(sha256(downloaded)).toBe(sha256(join(release, native)))
		expect(Bun.spawnSync([downloaded, '--version']).stdout.toString()).toBe(clientVersionLine())
	}, 60_000)
})
