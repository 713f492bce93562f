/** Terminal input shared by the server's admin commands and the cfgsync client. */

/**
 * Reads all of standard input (for --password-stdin), without its trailing
 * newline. Node's stream API, so the cfgsync client also runs on Node.
 */
export async function readStdin(): Promise<string> {
	const chunks: Buffer[] = []
	for await (const chunk of process.stdin)
		chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer))
	return Buffer.concat(chunks)
		.toString('utf8')
		.replace(/\r?\n$/, '')
}

export class PromptCancelled extends Error {}

/** Asks a question on the terminal; undefined when standard input is not a terminal. */
export async function prompt(question: string, options: { hidden?: boolean } = {}): Promise<string | undefined> {
	const stdin = process.stdin
	if (!stdin.isTTY) return undefined
	process.stderr.write(question)
	stdin.setRawMode(true)
	stdin.resume()
	stdin.setEncoding('utf8')
	return new Promise((resolve, reject) => {
		let value = ''
		const done = (error?: Error) => {
			stdin.setRawMode(false)
			stdin.pause()
			stdin.off('data', onData)
			process.stderr.write('\n')
			if (error) reject(error)
			else resolve(value)
		}
		const onData = (chunk: string) => {
			for (const char of chunk) {
				if (char === '\r' || char === '\n') return done()
				if (char === '\u0003') return done(new PromptCancelled('cancelled'))
				if (char === '\u007f' || char === '\b') {
					if (value.length > 0 && !options.hidden) process.stderr.write('\b \b')
					value = value.slice(0, -1)
				} else {
					value += char
					if (!options.hidden) process.stderr.write(char)
				}
			}
		}
		stdin.on('data', onData)
	})
}
