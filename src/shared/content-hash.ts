import { createHash } from 'node:crypto'

/**
 * docs/api.md content hash. Shared by the server and the CLI so both compute
 * the same value: lowercase hex SHA-256 of the canonical JSON of `data`.
 */
export const contentHash = (data: unknown): string => createHash('sha256').update(canonicalJson(data)).digest('hex')

/** Thrown for a value that JSON cannot carry exactly; `path` names where it sits. */
export class InexactValueError extends Error {
	constructor(
		readonly path: string[],
		readonly reason: string
	) {
		super(reason)
	}
}

/**
 * Canonical JSON: object keys sorted by code point at every depth, no
 * whitespace, strings and numbers as JSON.stringify writes them. Refuses
 * numbers that would not survive storage unchanged (not finite, or an
 * integer beyond ±(2^53−1)), and non-JSON values.
 */
export function canonicalJson(value: unknown): string {
	switch (typeof value) {
		case 'string':
			return JSON.stringify(value)
		case 'number':
			if (!Number.isFinite(value)) throw new InexactValueError([], 'is a number too large to store exactly')
			if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
				throw new InexactValueError([], 'is an integer beyond ±(2^53−1), which cannot be stored exactly')
			}
			return JSON.stringify(value)
		case 'boolean':
			return value ? 'true' : 'false'
		case 'object': {
			if (value === null) return 'null'
			if (Array.isArray(value)) {
				let out = '['
				for (let i = 0; i < value.length; i++) {
					if (i > 0) out += ','
					out += withPath(String(i), value[i])
				}
				return `${out}]`
			}
			const record = value as Record<string, unknown>
			const keys = Object.keys(record).sort(compareCodePoints)
			let out = '{'
			for (let i = 0; i < keys.length; i++) {
				const key = keys[i] as string
				if (i > 0) out += ','
				out += `${JSON.stringify(key)}:${withPath(key, record[key])}`
			}
			return `${out}}`
		}
		default:
			throw new InexactValueError([], 'is not a JSON value')
	}
}

function withPath(key: string, value: unknown): string {
	try {
		return canonicalJson(value)
	} catch (error) {
		if (error instanceof InexactValueError) error.path.unshift(key)
		throw error
	}
}

/**
 * Orders strings by Unicode code point. Plain `<` compares UTF-16 code units,
 * which puts U+E000..U+FFFF after astral characters; this maps surrogates above them.
 */
export function compareCodePoints(a: string, b: string): number {
	const length = Math.min(a.length, b.length)
	for (let i = 0; i < length; i++) {
		const x = a.charCodeAt(i)
		const y = b.charCodeAt(i)
		if (x !== y) {
			if (x >= 0xd800 && y >= 0xd800) return codeUnitRank(x) - codeUnitRank(y)
			return x - y
		}
	}
	return a.length - b.length
}

const codeUnitRank = (unit: number): number => (unit >= 0xe000 ? unit - 0x800 : unit >= 0xd800 ? unit + 0x2000 : unit)
