/** docs/api.md: ids are UUIDs; v7 is time-ordered, so primary-key inserts stay at the end of the b-tree. */
export const newId = (): string => Bun.randomUUIDv7()

/** A UUIDv7 stamped with `ms` rather than the wall clock: an event's id sorts with its own time. */
export const newIdAt = (ms: number): string => Bun.randomUUIDv7('hex', ms)

/**
 * The smallest UUIDv7 of the millisecond `ms`: every id made at or after that
 * moment sorts at or above it, so "older than" is a range on the id.
 */
export function uuidv7Floor(ms: number): string {
	const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0')
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`
}
