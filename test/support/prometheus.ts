/**
 * The Prometheus text exposition format, line by line: every sample has a
 * declared TYPE, a valid name, well-formed labels and a number; histograms have
 * ascending `le` buckets ending in +Inf with the count equal to the +Inf bucket.
 */
export function parsePrometheus(text: string) {
	const types = new Map<string, string>()
	const samples: { name: string; labels: Record<string, string>; value: number }[] = []
	for (const line of text.split('\n')) {
		if (line === '') continue
		const meta = line.match(/^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$/)
		if (meta) {
			if (meta[1] === 'TYPE') {
				if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(meta[3] as string))
					throw new Error(`bad type: ${line}`)
				if (types.has(meta[2] as string)) throw new Error(`TYPE twice: ${line}`)
				types.set(meta[2] as string, meta[3] as string)
			}
			continue
		}
		const sample = line.match(
			/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\n"])*",?)*)\})? (-?[0-9.e+]+|\+Inf|-Inf|NaN)$/
		)
		if (!sample) throw new Error(`not a sample line: ${JSON.stringify(line)}`)
		const name = sample[1] as string
		const family = types.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '')
		if (!types.has(family)) throw new Error(`sample without TYPE: ${line}`)
		const labels: Record<string, string> = {}
		for (const pair of (sample[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
			labels[pair[1] as string] = pair[2] as string
		samples.push({ name, labels, value: Number(sample[3]) })
	}
	for (const [family, type] of types) {
		if (type !== 'histogram') continue
		const series = new Map<string, { le: number; value: number }[]>()
		for (const s of samples.filter((s) => s.name === `${family}_bucket`)) {
			const { le, ...rest } = s.labels
			const key = JSON.stringify(rest)
			series.set(key, [...(series.get(key) ?? []), { le: le === '+Inf' ? Infinity : Number(le), value: s.value }])
		}
		for (const [key, buckets] of series) {
			for (let i = 1; i < buckets.length; i++) {
				if (!((buckets[i] as { le: number }).le > (buckets[i - 1] as { le: number }).le))
					throw new Error(`${family}: buckets out of order`)
				if ((buckets[i] as { value: number }).value < (buckets[i - 1] as { value: number }).value)
					throw new Error(`${family}: buckets not cumulative`)
			}
			const last = buckets[buckets.length - 1]
			if (last?.le !== Infinity) throw new Error(`${family}: no +Inf bucket`)
			const count = samples.find((s) => s.name === `${family}_count` && JSON.stringify(s.labels) === key)
			if (count?.value !== last.value) throw new Error(`${family}: count differs from +Inf bucket`)
		}
	}
	return { types, samples }
}
