import type { Sealer } from './crypto'

/** A known plaintext sealed under the master key: opening it proves the key is the database's own (CONTRACT §6). */
export const KEY_CHECK = { meta: 'master_key_check', plaintext: 'cfgsync master key check v1', aad: 'meta:master_key_check' } as const

/**
 * CONTRACT §10 key rotation: while `rekey` runs (and after, for servers still
 * holding the old key) `meta` holds the new key sealed under the old one.
 * Writes read it in their transaction and seal under the new key.
 */
export const PENDING_KEY_META = 'master_key_next'

/** The check value for this key, as stored in `meta`. */
export const sealKeyCheck = (sealer: Pick<Sealer, 'seal'>): string => Buffer.from(sealer.seal(KEY_CHECK.plaintext, KEY_CHECK.aad)).toString('base64')

/** True when `sealer`'s key opens the stored check value. */
export function opensKeyCheck(sealer: Pick<Sealer, 'open'>, sealedBase64: string): boolean {
	try {
		return sealer.open(Buffer.from(sealedBase64, 'base64'), KEY_CHECK.aad) === KEY_CHECK.plaintext
	} catch {
		return false
	}
}
