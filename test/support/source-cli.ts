import { resolve } from 'node:path'

const ROOT = resolve(import.meta.dir, '..', '..')

export interface CliResult {
	code: number
	stdout: string
	stderr: string
}

/**
 * One `cfgsync-server` command run from source (`bun src/index.ts`) with only PATH and `env` in its
 * environment: what an operator's shell gives it, without the test run's variables. It runs in the
 * checkout (Bun finds the JSX settings in tsconfig.json from there), so give it absolute paths.
 */
export async function serverCli(args: string[], env: Record<string, string> = {}, stdin?: string): Promise<CliResult> {
	const proc = Bun.spawn([process.execPath, resolve(ROOT, 'src', 'index.ts'), ...args], {
		cwd: ROOT,
		env: { PATH: process.env.PATH ?? '', ...env },
		stdin: stdin === undefined ? 'ignore' : new Blob([stdin]),
		stdout: 'pipe',
		stderr: 'pipe'
	})
	const [stdout, stderr, code] = await Promise.all([
		new Response(proc.stdout).text(),
		new Response(proc.stderr).text(),
		proc.exited
	])
	return { code, stdout, stderr }
}
