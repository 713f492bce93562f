import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { mcp } from '../../../src/client/commands/mcp'
import { REGISTRY } from '../../../src/client/commands/index'
import { CliFailure, setJsonMode } from '../../../src/client/output'
import { parseArgs } from 'node:util'
import { COMMON, type OptionSpec } from '../../../src/client/commands/command'

/** `cfgsync mcp ARGS` in process, in the test's home: what it printed and its exit status. */
export async function runMcp(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
	const options = Object.fromEntries(
		Object.entries<OptionSpec>({ ...COMMON, ...mcp.options }).map(([long, spec]) => [
			long,
			{ type: spec.type, ...(spec.short ? { short: spec.short } : {}), ...(spec.multiple ? { multiple: true } : {}) }
		])
	)
	let stdout = ''
	let stderr = ''
	const [out, err] = [process.stdout.write.bind(process.stdout), process.stderr.write.bind(process.stderr)]
	process.stdout.write = ((chunk: string) => {
		stdout += chunk
		return true
	}) as typeof process.stdout.write
	process.stderr.write = ((chunk: string) => {
		stderr += chunk
		return true
	}) as typeof process.stderr.write
	setJsonMode(args.includes('--json'))
	process.exitCode = 0
	try {
		const { values, positionals } = parseArgs({ args, options, allowPositionals: true, strict: true })
		await mcp.run({ values: values as never, positionals, registry: REGISTRY })
		return { code: Number(process.exitCode ?? 0), stdout, stderr }
	} catch (error) {
		if (error instanceof CliFailure) return { code: error.exitCode, stdout, stderr: stderr + error.message }
		throw error
	} finally {
		process.stdout.write = out
		process.stderr.write = err
		process.exitCode = 0
		setJsonMode(false)
	}
}

export const put = (home: string, path: string, content: string) => {
	mkdirSync(join(home, path, '..'), { recursive: true })
	writeFileSync(join(home, path), content)
}
export const read = (home: string, path: string) => readFileSync(join(home, path), 'utf8')
