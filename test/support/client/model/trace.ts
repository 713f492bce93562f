/** What each step did, for the report of a failing run: the seed, the step and the last steps before it. */

export interface TraceEntry {
	step: number
	machine: string
	action: string
	code?: number | null
	/** How the command was to be stopped: SIGKILL after this many ms, or at this crash point of the client. */
	kill?: number | string
	output?: string
}

const firstLines = (text: string, n: number) =>
	text
		.split('\n')
		.filter((line) => line.trim() !== '')
		.slice(0, n)
		.map((line) => (line.length > 200 ? `${line.slice(0, 200)}…` : line))
		.join(' | ')

export class Trace {
	readonly entries: TraceEntry[] = []

	add(entry: TraceEntry): void {
		this.entries.push(entry)
	}

	command(
		step: number,
		machine: string,
		args: string[],
		result: { code: number | null; stdout: string; stderr: string },
		kill?: number | string
	): void {
		this.add({
			step,
			machine,
			action: `cfgsync ${args.join(' ')}`,
			code: result.code,
			kill,
			output: firstLines(`${result.stderr}\n${compact(result.stdout)}`, 3)
		})
	}

	format(last = 30): string {
		return this.entries
			.slice(-last)
			.map((e) => {
				const how =
					e.kill !== undefined
						? ` → ${typeof e.kill === 'number' ? `SIGKILL after ${e.kill} ms` : `SIGKILL at crash point ${e.kill}`}${e.code === null ? '' : ` (had exited ${e.code} before)`}`
						: e.code !== undefined
							? ` → exit ${e.code}`
							: ''
				return `  #${e.step} ${e.machine}: ${e.action}${how}${e.output ? `\n      ${e.output}` : ''}`
			})
			.join('\n')
	}
}

/** A --json document in one line, its noisy parts left out. */
function compact(stdout: string): string {
	try {
		const value = JSON.parse(stdout)
		const docs = Array.isArray(value) ? value : [value]
		return docs
			.map((d) => {
				if (typeof d !== 'object' || d === null) return JSON.stringify(d)
				const who = d.config ? `${d.config.tool}${d.config.team ? `@${d.config.team}` : ''}` : '?'
				const bits = [
					d.serverVersion !== undefined ? `server v${d.serverVersion}` : '',
					d.pushed ? `pushed v${d.pushed.version}` : '',
					d.changes?.length
						? `wrote ${d.changes.map((c: { path: string; action: string }) => `${c.action} ${c.path}`).join(', ')}`
						: '',
					d.conflicts?.length
						? `CONFLICT ${d.conflicts.map((c: { path: string; why: string }) => `${c.path} (${c.why})`).join(', ')}`
						: '',
					d.error ? `error: ${d.error}` : ''
				].filter(Boolean)
				return `${who}: ${bits.join('; ')}`
			})
			.join(' / ')
	} catch {
		return stdout
	}
}
