import { type Column, or, sql, type SQL } from 'drizzle-orm'
import { SEARCH_MAX_LENGTH } from '../lib/search'
import type { PushCondition, UserActivityRow, UserRow, VisibleConfigRow } from './types'

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

/** Users with their key count and when they were last seen (a key used, or a web session), from per-user figures. */
export function withActivity(
	found: UserRow[],
	keys: { userId: string; keyCount: number | string; lastUsed: string | null }[],
	seen: { userId: string; lastSeen: string | null }[]
): UserActivityRow[] {
	const keysOf = new Map(keys.map((row) => [row.userId, row]))
	const seenOf = new Map(seen.map((row) => [row.userId, row.lastSeen]))
	return found.map((user) => {
		const times = [keysOf.get(user.id)?.lastUsed, seenOf.get(user.id)]
			.filter((at): at is string => typeof at === 'string')
			.sort()
		return {
			...user,
			keyCount: Number(keysOf.get(user.id)?.keyCount ?? 0),
			lastSeenAt: times[times.length - 1] ?? null
		}
	})
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

export { SEARCH_MAX_LENGTH } from '../lib/search'

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

/**
 * One page of a user's audit events — those they did and those done to them — from two index-ordered
 * scans (`by actor` and `by subject`, each at most a page), merged by id. A single `actor OR subject`
 * condition makes both engines walk the whole log newest first for a user with few events (0.9 s at a
 * million events for limit=1; docs/performance.md). `scan` reads one side in the page's order; an event that
 * is both the user's and done to them comes once.
 */
export async function userAuditPage<Row extends { id: string }>(
	scan: (side: 'actor' | 'subject') => Promise<Row[]>,
	limit: number,
	ascending: boolean
): Promise<Row[]> {
	const [asActor, asSubject] = await Promise.all([scan('actor'), scan('subject')])
	const byId = new Map<string, Row>()
	for (const row of [...asActor, ...asSubject]) byId.set(row.id, row)
	const ordered = [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
	if (!ascending) ordered.reverse()
	return ordered.slice(0, limit)
}

const utf8 = (text: string | null) => Buffer.from(text ?? '', 'utf8')

/** The Configs page's order: name, tool, then personal before teams by team name, then id — in byte order. */
function visibleOrder(a: VisibleConfigRow, b: VisibleConfigRow): number {
	if (a.name !== b.name) return Buffer.compare(utf8(a.name), utf8(b.name))
	if (a.tool !== b.tool) return Buffer.compare(utf8(a.tool), utf8(b.tool))
	if ((a.teamName === null) !== (b.teamName === null)) return a.teamName === null ? -1 : 1
	const byTeam = Buffer.compare(utf8(a.teamName), utf8(b.teamName))
	return byTeam !== 0 ? byTeam : Buffer.compare(utf8(a.id), utf8(b.id))
}

/**
 * A page of the configs a user sees (docs/web.md), from one index-ordered scan per scope — their personal
 * configs and each live team's — each reading no more than the page's end, merged in the page's order.
 * Sorting every config the user can see before the offset grew with the server (docs/performance.md).
 */
export async function visiblePage(
	scopes: (() => Promise<VisibleConfigRow[]>)[],
	page: { offset: number; limit: number }
): Promise<VisibleConfigRow[]> {
	const rows = (await Promise.all(scopes.map((scan) => scan()))).flat()
	return rows.sort(visibleOrder).slice(page.offset, page.offset + page.limit)
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

/**
 * The purge's next step (docs/performance.md#purge): the leading configs whose rows (the config and at
 * most `version` versions, the numbers being 1…version) fit in `limit` go whole; when the first alone
 * does not fit, its old versions go `limit` at a time and then it goes with its current one.
 */
export function purgeStepPlan(
	found: { id: string; version: number }[],
	limit: number
): { whole: string[] } | { trim: string } | undefined {
	const whole: string[] = []
	let rows = 0
	for (const config of found) {
		rows += config.version + 1
		if (rows > limit) break
		whole.push(config.id)
	}
	if (whole.length > 0) return { whole }
	return found[0] && { trim: found[0].id }
}
