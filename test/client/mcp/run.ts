import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cfgsync } from '../../support/client-io'

/** `cfgsync mcp ARGS` in process (test/support/client-io.ts), in the test's home: what it printed and its exit status. */
export async function runMcp(
	args: string[],
	options: Parameters<typeof cfgsync>[1] = {}
): Promise<{ code: number; stdout: string; stderr: string }> {
	const { code, stdout, stderr } = await cfgsync(['mcp', ...args], options)
	return { code, stdout, stderr }
}

export const put = (home: string, path: string, content: string) => {
	mkdirSync(join(home, path, '..'), { recursive: true })
	writeFileSync(join(home, path), content)
}
export const read = (home: string, path: string) => readFileSync(join(home, path), 'utf8')
