/**
 * A small Prometheus registry (text exposition format 0.0.4): counters and
 * histograms keyed by a fixed list of label values, gauges read at scrape
 * time. Small on purpose: the access log updates it on every request, so an
 * update is one Map lookup by a joined key and a few additions.
 */

type Labels = readonly string[]

const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')
const renderLabels = (names: Labels, values: readonly string[], extra = '') => {
	const parts = names.map((name, i) => `${name}="${escapeLabel(values[i] ?? '')}"`)
	if (extra) parts.push(extra)
	return parts.length === 0 ? '' : `{${parts.join(',')}}`
}
const formatNumber = (n: number) => (Number.isFinite(n) ? String(n) : n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN')

export interface Counter {
	inc(values?: readonly string[], by?: number): void
	/** The series for these label values, to keep and update without looking it up again. */
	series(values: readonly string[]): { inc(by?: number): void }
}
export interface Histogram {
	observe(values: readonly string[], seconds: number): void
	series(values: readonly string[]): { observe(seconds: number): void }
}

export function createMetrics() {
	const renderers: (() => string | Promise<string>)[] = []

	function counter(name: string, help: string, labels: Labels = []): Counter {
		const series = new Map<string, { values: readonly string[]; count: number }>()
		renderers.push(() => {
			let out = `# HELP ${name} ${help}\n# TYPE ${name} counter\n`
			for (const { values, count } of series.values())
				out += `${name}${renderLabels(labels, values)} ${formatNumber(count)}\n`
			return out
		})
		const seriesOf = (values: readonly string[]) => {
			const key = values.join('\u0000')
			const found = series.get(key)
			if (found) return found
			const entry = { values: [...values], count: 0 }
			series.set(key, entry)
			return entry
		}
		return {
			inc(values = [], by = 1) {
				seriesOf(values).count += by
			},
			series(values) {
				const entry = seriesOf(values)
				return {
					inc: (by = 1) => {
						entry.count += by
					}
				}
			}
		}
	}

	function histogram(name: string, help: string, labels: Labels, buckets: readonly number[]): Histogram {
		const series = new Map<string, { values: readonly string[]; counts: number[]; sum: number; count: number }>()
		renderers.push(() => {
			let out = `# HELP ${name} ${help}\n# TYPE ${name} histogram\n`
			for (const { values, counts, sum, count } of series.values()) {
				let cumulative = 0
				for (let i = 0; i < buckets.length; i++) {
					cumulative += counts[i] as number
					out += `${name}_bucket${renderLabels(labels, values, `le="${buckets[i]}"`)} ${cumulative}\n`
				}
				out += `${name}_bucket${renderLabels(labels, values, 'le="+Inf"')} ${count}\n`
				out += `${name}_sum${renderLabels(labels, values)} ${formatNumber(sum)}\n`
				out += `${name}_count${renderLabels(labels, values)} ${count}\n`
			}
			return out
		})
		const seriesOf = (values: readonly string[]) => {
			const key = values.join('\u0000')
			const found = series.get(key)
			if (found) return found
			const entry = { values: [...values], counts: new Array(buckets.length).fill(0), sum: 0, count: 0 }
			series.set(key, entry)
			return entry
		}
		const observeIn = (entry: ReturnType<typeof seriesOf>, seconds: number) => {
			let i = 0
			while (i < buckets.length && seconds > (buckets[i] as number)) i++
			if (i < buckets.length) entry.counts[i] = (entry.counts[i] as number) + 1
			entry.sum += seconds
			entry.count++
		}
		return {
			observe: (values, seconds) => observeIn(seriesOf(values), seconds),
			series(values) {
				const entry = seriesOf(values)
				return { observe: (seconds) => observeIn(entry, seconds) }
			}
		}
	}

	/** A gauge (or several series of one) read when the metrics are scraped. */
	function gauge(name: string, help: string, read: () => number | undefined | Promise<number | undefined>) {
		renderers.push(async () => {
			const value = await read()
			return value === undefined ? '' : `# HELP ${name} ${help}\n# TYPE ${name} gauge\n${name} ${formatNumber(value)}\n`
		})
	}

	/** A constant 1 whose labels carry the information (Prometheus' `*_info` convention, e.g. a build's version). */
	function info(name: string, help: string, labels: Record<string, string>) {
		const line = `${name}${renderLabels(Object.keys(labels), Object.values(labels))} 1\n`
		renderers.push(() => `# HELP ${name} ${help}\n# TYPE ${name} gauge\n${line}`)
	}

	return {
		counter,
		histogram,
		gauge,
		info,
		/** Everything in the text exposition format. */
		async render(): Promise<string> {
			let out = ''
			for (const render of renderers) out += await render()
			return out
		}
	}
}
