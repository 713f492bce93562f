import { createHash } from 'node:crypto'
import type { Store } from './types'

const PAGE = 1000
/**
 * About how many bytes a page may hold: pages of versions shrink to it, so a copy's memory stays the
 * same whatever the database's size or its versions' (docs/performance.md: under 300 MB; 1,000 versions of
 * 512 KiB were half a gigabyte in one page).
 */
const PAGE_BYTES = 8 * 1024 * 1024

/** A table's first page: small, since nothing is known yet of what its rows weigh (a version: up to 512 KiB). */
const FIRST_PAGE = 16

/**
 * The rows of the next page: as many as fit PAGE_BYTES at the last page's bytes a row, growing at most
 * fourfold a page, from 1 to PAGE.
 */
function nextPageRows(page: Record<string, unknown>[], limit: number): number {
	let bytes = 0
	for (const row of page)
		for (const value of Object.values(row))
			bytes += value instanceof Uint8Array ? value.byteLength : typeof value === 'string' ? value.length : 8
	const fits = Math.floor((page.length * PAGE_BYTES) / Math.max(1, bytes))
	return Math.max(1, Math.min(PAGE, limit * 4, fits))
}

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
 * `db copy` (docs/operations.md, docs/postgresql.md): every row of every table from `source` into the
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
		let limit = FIRST_PAGE
		for (;;) {
			const page = await source.tables.page(table, after, limit)
			if (page.length === 0) break
			try {
				await target.tables.insert(table, page)
			} catch (error) {
				throw new CopyFailed(table, rows, error)
			}
			rows += page.length
			after = await source.tables.keyOf(table, page[page.length - 1] as Record<string, unknown>)
			limit = nextPageRows(page, limit)
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

const MOD = 1n << 256n

/**
 * A table's content hash, the same on both engines for the same rows: each row
 * is hashed as canonical JSON (fields in name order, bytes as base64), and the
 * row hashes are added modulo 2^256 — a sum, so neither engine's ordering of
 * text matters, and kept as one number, so memory does not grow with the rows.
 */
export async function digest(store: Store, table: string): Promise<{ rows: number; digest: string }> {
	let sum = 0n
	let rows = 0
	let after: string | number | null = null
	let limit = FIRST_PAGE
	for (;;) {
		const page = await store.tables.page(table, after, limit)
		if (page.length === 0) break
		for (const row of page) sum = (sum + BigInt(`0x${createHash('sha256').update(canonical(row)).digest('hex')}`)) % MOD
		rows += page.length
		after = await store.tables.keyOf(table, page[page.length - 1] as Record<string, unknown>)
		limit = nextPageRows(page, limit)
	}
	return { rows, digest: sum.toString(16).padStart(64, '0') }
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
