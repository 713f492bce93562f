import { type Column, sql, type SQL } from 'drizzle-orm'
import type { PushCondition } from './types'

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
