import { type Column, or, sql, type SQL } from 'drizzle-orm'
import type { PushCondition } from './types'

export type { ListPage } from './types'

/** What both engines' stores share: rules that are not SQL. */

/**
 * Select fields aliased to their own keys (`"configs"."user_id" AS "userId"`),
 * so the driver builds each row object natively, keyed as our row types are.
 */
export function aliased<Fields extends Record<string, Column>>(fields: Fields) {
	return Object.fromEntries(Object.entries(fields).map(([key, column]) => [key, sql`${column}`.as(key)])) as {
		[Key in keyof Fields]: SQL.Aliased<Fields[Key]['_']['data']>
	}
}

/** Emails and usernames are unique and matched case-insensitively (docs/api.md). */
export const loginKey = (login: string): string => login.trim().toLowerCase()

/** True when the condition of a conditional push does not hold for `current`. */
export function conditionFails(condition: PushCondition | undefined, current: { hash: string } | undefined): boolean {
	if (!condition) return false
	const { ifMatch, ifNoneMatch } = condition
	if (ifMatch !== undefined) {
		if (!current) return true
		if (ifMatch !== '*' && !ifMatch.includes(current.hash)) return true
	}
	if (ifNoneMatch !== undefined && current) {
		if (ifNoneMatch === '*' || ifNoneMatch.includes(current.hash)) return true
	}
	return false
}

/** docs/web.md, search: at most this many characters of a search are used, so a query costs the same whatever is typed. */
export const SEARCH_MAX_LENGTH = 100

/**
 * A search as a case-insensitive `LIKE` pattern (both engines compare it with `lower(column)`): `%`, `_` and
 * the escape character itself match only themselves (the statements say `ESCAPE '\'`).
 */
export const containsPattern = (search: string): string =>
	`%${search
		.slice(0, SEARCH_MAX_LENGTH)
		.toLowerCase()
		.replace(/[\\%_]/g, (char) => `\\${char}`)}%`

/** Rows where one of `columns` contains the search (undefined, so no condition, when there is nothing to look for). */
export function containsAny(columns: Column[], search: string | undefined): SQL | undefined {
	const trimmed = search?.trim() ?? ''
	if (trimmed === '') return undefined
	const pattern = containsPattern(trimmed)
	return or(...columns.map((column) => sql`lower(${column}) LIKE ${pattern} ESCAPE '\\'`))
}

/** The kept setup address (`SETUP_TOKEN_META`): its link's id and its sealed token; undefined when none or unreadable. */
export function parseKept(value: string | undefined): { id: string; sealed: string } | undefined {
	if (value === undefined) return undefined
	try {
		const parsed = JSON.parse(value) as { id?: unknown; sealed?: unknown }
		return typeof parsed.id === 'string' && typeof parsed.sealed === 'string'
			? { id: parsed.id, sealed: parsed.sealed }
			: undefined
	} catch {
		return undefined
	}
}
