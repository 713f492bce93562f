import { createHash } from 'node:crypto'
import type { Store } from './types'

const PAGE = 1000

export interface TableFigures {
	table: string
	sourceRows: number
	targetRows: number
	sourceDigest: string
	targetDigest: string
}

/**
 * A copy that the target refused: which table, after how many rows, and the driver's reason in one
 * line. Never the rows: an insert's error text (Drizzle's) lists its parameters, which hold
 * usernames, addresses and sealed data.
 */
export class CopyFailed extends Error {
	override name = 'CopyFailed'
	constructor(
		readonly table: string,
		readonly copied: number,
		cause: unknown
	) {
		super(`the target refused a row of ${table} (after ${copied} rows of it): ${reasonOf(cause)}`)
	}
}

/** The innermost error's first line, with its SQLSTATE or SQLite code: what failed, without the values. */
function reasonOf(error: unknown): string {
	let current = error
	while (typeof current === 'object' && current !== null && (current as { cause?: unknown }).cause !== undefined)
		current = (current as { cause: unknown }).cause
	const { message, code, errno } = (current ?? {}) as { message?: unknown; code?: unknown; errno?: unknown }
	const text = typeof message === 'string' ? (message.split('\n')[0] ?? '') : String(current)
	// Drizzle's own "Failed query: insert … params: …" is never shown, whatever wraps it.
	const clean = text.startsWith('Failed query') ? 'the insert failed' : text.slice(0, 200)
	const label = typeof errno === 'string' && /^[0-9A-Z]{5}$/.test(errno) ? errno : typeof code === 'string' ? code : ''
	return label ? `${clean} (${label})` : clean
}

/** Why a target cannot take a copy: the tables that already hold rows (docs/operations.md: only into an empty database). */
export async function rowsAlreadyIn(target: Store): Promise<string[]> {
	const filled: string[] = []
	for (const table of target.tables.names) {
		const rows = await target.tables.count(table)
		if (rows > 0) filled.push(`${table} (${rows} row${rows === 1 ? '' : 's'})`)
	}
	return filled
}

/**
 * `db copy` (docs/operations.md, §9): every row of every table from `source` into the
 * empty `target`, sealed data as it is (the same master key opens both), a
 * page at a time; then both sides are counted and hashed table by table.
 */
export async function copyDatabase(
	source: Store,
	target: Store,
	onTable: (table: string, rows: number) => void = () => {}
): Promise<TableFigures[]> {
	for (const table of source.tables.names) {
		let after: string | number | null = null
		let rows = 0
		for (;;) {
			const page = await source.tables.page(table, after, PAGE)
			if (page.length === 0) break
			try {
				await target.tables.insert(table, page)
			} catch (error) {
				throw new CopyFailed(table, rows, error)
			}
			rows += page.length
			after = source.tables.keyOf(table, page[page.length - 1] as Record<string, unknown>)
		}
		onTable(table, rows)
	}
	await target.tables.finish()
	const figures: TableFigures[] = []
	for (const table of source.tables.names) {
		const [sourceSide, targetSide] = [await digest(source, table), await digest(target, table)]
		figures.push({
			table,
			sourceRows: sourceSide.rows,
			targetRows: targetSide.rows,
			sourceDigest: sourceSide.digest,
			targetDigest: targetSide.digest
		})
	}
	return figures
}

/**
 * A table's content hash, the same on both engines for the same rows: each row
 * is hashed as canonical JSON (fields in name order, bytes as base64), and the
 * sorted row hashes are hashed again, so neither engine's ordering of text matters.
 */
async function digest(store: Store, table: string): Promise<{ rows: number; digest: string }> {
	const rowHashes: string[] = []
	let after: string | number | null = null
	for (;;) {
		const page = await store.tables.page(table, after, PAGE)
		if (page.length === 0) break
		for (const row of page) rowHashes.push(createHash('sha256').update(canonical(row)).digest('hex'))
		after = store.tables.keyOf(table, page[page.length - 1] as Record<string, unknown>)
	}
	rowHashes.sort()
	const all = createHash('sha256')
	for (const hash of rowHashes) all.update(hash)
	return { rows: rowHashes.length, digest: all.digest('hex') }
}

function canonical(row: Record<string, unknown>): string {
	return JSON.stringify(
		Object.keys(row)
			.sort()
			.map((key) => {
				const value = row[key]
				return [key, value instanceof Uint8Array ? `bytes:${Buffer.from(value).toString('base64')}` : value]
			})
	)
}
