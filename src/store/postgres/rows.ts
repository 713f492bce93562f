import type { SQL as BunSQL } from 'bun'
import { Placeholder, type SQLWrapper } from 'drizzle-orm'

type Params = Record<string, string | number | boolean | null | Uint8Array>

/**
 * A hot-path read (the twin of ../sqlite/rows.ts): the SQL comes from a Drizzle
 * query builder whose fields were `aliased()`, and runs on Bun.SQL directly,
 * which returns the rows as objects keyed by those aliases; Drizzle's generic
 * row mapper would rebuild every row. Only for columns whose values need no
 * decoding (text, integer, bytea).
 */
export function hotRows<Row>(client: BunSQL, query: SQLWrapper & { toSQL(): { sql: string; params: unknown[] } }) {
	const { sql: text, params } = query.toSQL()
	const names = params.map((param) => (param instanceof Placeholder ? param.name : undefined))
	const bind = (values: Params) => params.map((param, i) => (names[i] === undefined ? param : values[names[i] as string]))
	return {
		get: async (values: Params): Promise<Row | undefined> => ((await client.unsafe(text, bind(values))) as Row[])[0],
		all: async (values: Params): Promise<Row[]> => [...((await client.unsafe(text, bind(values))) as Row[])]
	}
}
