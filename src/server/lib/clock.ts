/** Time as the app sees it; tests pass a fixed or movable clock. */
export interface Clock {
	/** Milliseconds since the epoch. */
	now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

/** docs/api.md: ISO 8601 UTC with milliseconds. */
export const toIso = (ms: number): string => new Date(ms).toISOString()

/** A clock for tests: starts at `start` and moves only when told. */
export function manualClock(start = Date.parse('2026-11-22T10:00:00.000Z')) {
	let current = start
	return {
		now: () => current,
		advance(ms: number) {
			current += ms
		},
		set(ms: number) {
			current = ms
		}
	}
}
