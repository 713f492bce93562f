import { spawn } from 'node:child_process'
import type { IO } from './io'

/**
 * Long output on a terminal goes through a pager, as git and gh do:
 * CFGSYNC_PAGER, else PAGER, else `less` (with LESS=FRX unless LESS is set:
 * quit when it fits, keep colours, leave the text on screen). `--no-pager`,
 * an empty or `cat` pager, output that is not a terminal, or text that fits
 * on the screen print directly.
 */
export async function page(io: IO, text: string, options: { noPager?: boolean } = {}): Promise<void> {
	const pager = io.env.CFGSYNC_PAGER ?? io.env.PAGER ?? 'less'
	const lines = text.split('\n').length - 1
	const rows = io.stdout.rows || 24
	if (options.noPager || !io.stdout.isTTY || pager.trim() === '' || pager.trim() === 'cat' || lines < rows) {
		io.stdout.write(text)
		return
	}
	const status = await new Promise<number | 'failed'>((resolve) => {
		// Only a terminal reaches here, so the pager writes to the terminal the command runs on.
		const child = spawn(pager, {
			shell: true,
			stdio: ['pipe', 'inherit', 'inherit'],
			env: { ...io.env, LESS: io.env.LESS ?? 'FRX', LV: io.env.LV ?? '-c' }
		})
		child.on('error', () => resolve('failed'))
		child.on('close', (code) => resolve(code ?? 0))
		// The person may quit the pager before reading everything: that is not an error.
		child.stdin.on('error', () => {})
		child.stdin.end(text)
	})
	// A pager that is not installed (the shell's 127): print the text itself.
	if (status === 'failed' || status === 127) io.stdout.write(text)
}
