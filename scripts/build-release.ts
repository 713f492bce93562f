/**
 * `npm run build:release`: the standalone client for every platform
 * developers use, cross-compiled with Bun's
 * --target, into dist/release/ with SHA256SUMS. The operator copies these
 * files into the server's --downloads-dir, which serves them at /download.
 * x64 targets use Bun's baseline build, which runs on CPUs without AVX2 too.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { commitDefine } from './build-commit'

const root = resolve(import.meta.dir, '..')
const out = join(root, 'dist', 'release')
const bun = process.execPath

export const TARGETS = [
	{ file: 'cfgsync-linux-x64', target: 'bun-linux-x64-baseline' },
	{ file: 'cfgsync-linux-arm64', target: 'bun-linux-arm64' },
	{ file: 'cfgsync-darwin-x64', target: 'bun-darwin-x64-baseline' },
	{ file: 'cfgsync-darwin-arm64', target: 'bun-darwin-arm64' },
	{ file: 'cfgsync-windows-x64.exe', target: 'bun-windows-x64-baseline' }
]

rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
const started = Date.now()
const sums: string[] = []
for (const { file, target } of TARGETS) {
	const begun = Date.now()
	const outfile = join(out, file)
	// The same flags as npm run build:client; --target fetches that platform's Bun runtime once (npm registry), then it is cached.
	const build = Bun.spawnSync(
		[
			bun,
			'build',
			'--compile',
			`--target=${target}`,
			'--minify-whitespace',
			'--minify-syntax',
			'--no-compile-autoload-dotenv',
			'--no-compile-autoload-bunfig',
			...Object.entries(commitDefine()).flatMap(([name, value]) => ['--define', `${name}=${value}`]),
			'--outfile',
			outfile,
			join(root, 'src', 'client', 'main.ts')
		],
		{ cwd: root, stdout: 'pipe', stderr: 'pipe' }
	)
	if (build.exitCode !== 0) {
		console.error(`${file} (${target}) failed:\n${build.stderr.toString()}${build.stdout.toString()}`)
		process.exit(1)
	}
	const bytes = Bun.file(outfile)
	const hasher = new Bun.CryptoHasher('sha256')
	hasher.update(await bytes.arrayBuffer())
	sums.push(`${hasher.digest('hex')}  ${file}`)
	console.log(
		`${file}: ${(bytes.size / 1024 / 1024).toFixed(1)} MB (${target}, ${((Date.now() - begun) / 1000).toFixed(1)} s)`
	)
}
writeFileSync(join(out, 'SHA256SUMS'), `${sums.join('\n')}\n`)
console.log(
	`dist/release/: ${TARGETS.length} executables and SHA256SUMS in ${((Date.now() - started) / 1000).toFixed(1)} s. Serve them with: cfgsync-server --downloads-dir ${out}`
)
