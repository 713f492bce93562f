import type { SQL as BunSQL } from 'bun'
import { Param, Placeholder, type SQLWrapper } from 'drizzle-orm'

type Params = Record<string, string | number | boolean | null | Uint8Array>

/**
 * A hot-path read (the twin of ../sqlite/rows.ts): the SQL comes from a Drizzle
 * query builder whose fields were `aliased()`, and runs on Bun.SQL directly,
 * which returns the rows as objects keyed by those aliases; Drizzle's generic
 * row mapper would rebuild every row. Only for columns whose values need no
 * decoding (text, integer, bytea).
 */
export function hotRows<Row>(client: BunSQL, query: SQLWrapper & { toSQL(): { sql: string; params: unknown[] } }) {
	const run = statement<Row>(query)
	return {
		get: async (values: Params): Promise<Row | undefined> => (await run(client, values))[0],
		all: async (values: Params): Promise<Row[]> => [...(await run(client, values))]
	}
}

/**
 * A statement built once from a Drizzle query builder with placeholders, run on
 * a pool or inside a Bun.SQL transaction (`client.begin(tx => …)`). For the hot
 * write path: building the query per call cost more CPU than the query, and a
 * push holds its config's lock while it runs.
 */
export function statement<Row = unknown>(query: SQLWrapper & { toSQL(): { sql: string; params: unknown[] } }) {
	const { sql: text, params: raw } = query.toSQL()
	// An insert's values come wrapped in Param (value and column); the value is the placeholder or literal.
	const params = raw.map((param) => (param instanceof Param ? param.value : param))
	const names = params.map((param) => (param instanceof Placeholder ? param.name : undefined))
	const bind = (values: Params) =>
		params.map((param, i) => (names[i] === undefined ? param : values[names[i] as string]))
	return (on: BunSQL, values: Params = {}): Promise<Row[]> => on.unsafe(text, bind(values)) as Promise<Row[]>
}
