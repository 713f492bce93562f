import type { Sealer } from './crypto'

/** A known plaintext sealed under the master key: opening it proves the key is the database's own (docs/operations.md). */
export const KEY_CHECK = {
	meta: 'master_key_check',
	plaintext: 'cfgsync master key check v1',
	aad: 'meta:master_key_check'
} as const

/**
 * docs/operations.md key rotation: while `rekey` runs (and after, for servers still
 * holding the old key) `meta` holds the new key sealed under the old one.
 * Writes read it in their transaction and seal under the new key.
 */
export const PENDING_KEY_META = 'master_key_next'

/** The check value for this key, as stored in `meta`. */
export const sealKeyCheck = (sealer: Pick<Sealer, 'seal'>): string =>
	Buffer.from(sealer.seal(KEY_CHECK.plaintext, KEY_CHECK.aad)).toString('base64')

/** True when `sealer`'s key opens the stored check value. */
export function opensKeyCheck(sealer: Pick<Sealer, 'open'>, sealedBase64: string): boolean {
	try {
		return sealer.open(Buffer.from(sealedBase64, 'base64'), KEY_CHECK.aad) === KEY_CHECK.plaintext
	} catch {
		return false
	}
}

/**
 * docs/operations.md: the ids (`masterKeyId`) of keys a rotation retired, with when, as a JSON list in
 * `meta`, so a server started with an old key can say that the key was rotated rather than that it
 * is wrong. Ids are one-way fingerprints: nothing here opens anything.
 */
export const RETIRED_KEYS_META = 'master_key_retired'

export interface RetiredKey {
	id: string
	rotatedAt: string
}

export function parseRetiredKeys(value: string | undefined): RetiredKey[] {
	if (value === undefined) return []
	try {
		const list = JSON.parse(value) as unknown
		return Array.isArray(list)
			? list.filter(
					(entry): entry is RetiredKey => typeof entry?.id === 'string' && typeof entry?.rotatedAt === 'string'
				)
			: []
	} catch {
		return []
	}
}

/** The stored list with `id` added (once). */
export const withRetiredKey = (value: string | undefined, id: string, rotatedAt: string): string => {
	const list = parseRetiredKeys(value)
	return JSON.stringify(list.some((entry) => entry.id === id) ? list : [...list, { id, rotatedAt }])
}
