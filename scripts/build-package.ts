/**
 * `npm run build:package`: the client as an npm package (docs/client.md), made
 * into dist/cfgsync.tgz, which `npm run build:server` embeds in the server
 * binary for GET /download/cfgsync.tgz. One bundled, minified ES module with
 * no dependencies to fetch, for Node 20 or later on any OS:
 * `npm install -g http://server:8787/download/cfgsync.tgz` installs `cfgsync`.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { commitDefine } from './build-commit'

const root = resolve(import.meta.dir, '..')
const dist = join(root, 'dist')
const staging = join(dist, 'npm')
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }

rmSync(staging, { recursive: true, force: true })
mkdirSync(staging, { recursive: true })
const built = await Bun.build({
	entrypoints: [join(root, 'src', 'client', 'main.ts')],
	target: 'node',
	format: 'esm',
	// The client has no framework that reads function source (the server's Elysia does), so full minification is safe here.
	minify: true,
	outdir: staging,
	naming: 'cfgsync.mjs',
	define: commitDefine()
})
if (!built.success) {
	for (const log of built.logs) console.error(log)
	process.exit(1)
}
const bundle = join(staging, 'cfgsync.mjs')
const code = readFileSync(bundle, 'utf8')
if (/\bBun\.[A-Za-z]/.test(code)) {
	console.error('the client bundle uses a Bun API; it must run on Node (docs/client.md)')
	process.exit(1)
}
if (!code.startsWith('#!')) writeFileSync(bundle, `#!/usr/bin/env node\n${code}`)

writeFileSync(
	join(staging, 'package.json'),
	`${JSON.stringify(
		{
			name: 'cfgsync',
			version,
			description:
				'Client of a self-hosted cfgsync server: sync Claude Code, Cursor, Windsurf, VS Code, Codex and Gemini CLI configuration',
			type: 'module',
			bin: { cfgsync: 'cfgsync.mjs' },
			files: ['cfgsync.mjs'],
			engines: { node: '>=20' }
		},
		null,
		2
	)}\n`
)
writeFileSync(
	join(staging, 'README.md'),
	`# cfgsync ${version}\n\nThe command-line client of a self-hosted cfgsync server, installed from that server:\n\n    npm install -g http://your-server:8787/download/cfgsync.tgz\n    cfgsync login --server http://your-server:8787\n    cfgsync --help\n\nOne bundled file with no dependencies; runs on Node.js 20 or later.\n`
)

// npm pack writes fixed timestamps and ordering, so the same sources make the same tarball (and the same SHA-256).
const pack = Bun.spawnSync(['npm', 'pack', '--silent', '--pack-destination', dist], {
	cwd: staging,
	stdout: 'pipe',
	stderr: 'pipe',
	env: { ...process.env, npm_config_loglevel: 'error' }
})
if (pack.exitCode !== 0) {
	console.error(pack.stderr.toString())
	process.exit(1)
}
const packed = pack.stdout.toString().trim().split('\n').pop() as string
renameSync(join(dist, packed), join(dist, 'cfgsync.tgz'))
const size = Bun.file(join(dist, 'cfgsync.tgz')).size
console.log(
	`dist/cfgsync.tgz: ${(size / 1024).toFixed(1)} KB (cfgsync.mjs ${(Bun.file(bundle).size / 1024).toFixed(1)} KB), cfgsync ${version} for Node >= 20`
)
