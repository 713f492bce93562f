import {
	createCipheriv,
	createDecipheriv,
	createHash,
	createHmac,
	createSecretKey,
	hkdfSync,
	randomBytes,
	type KeyObject
} from 'node:crypto'

export const sha256Hex = (input: string | Uint8Array): string => Bun.CryptoHasher.hash('sha256', input, 'hex')

/** docs/api.md: `cs_` followed by exactly 64 lowercase hex characters. */
export const API_KEY_PATTERN = /^cs_[0-9a-f]{64}$/

/** 256 random bits; only its SHA-256 is ever stored. */
export const generateApiKey = (): string => `cs_${randomBytes(32).toString('hex')}`

export const MASTER_KEY_BYTES = 32

export const generateMasterKey = (): Buffer => randomBytes(MASTER_KEY_BYTES)

/** docs/operations.md: base64 of exactly 32 bytes, or a clear error. */
export function parseMasterKey(text: string): Buffer {
	const trimmed = text.trim()
	if (!/^[A-Za-z0-9+/]+={0,2}$/.test(trimmed) || trimmed.length % 4 !== 0) {
		throw new Error('the master key is not valid base64')
	}
	const key = Buffer.from(trimmed, 'base64')
	if (key.length !== MASTER_KEY_BYTES) {
		throw new Error(`the master key must be ${MASTER_KEY_BYTES} bytes, got ${key.length}`)
	}
	return key
}

const NONCE_BYTES = 12
const TAG_BYTES = 16

export interface Sealer {
	/**
	 * AES-256-GCM with a fresh 96-bit nonce; `aad` binds the ciphertext to its row. Layout: nonce | ciphertext | tag.
	 * With `pending` (a rotation's new key sealed under this one, docs/operations.md) the new key seals instead.
	 */
	seal(plaintext: string | Uint8Array, aad: string, pending?: string): Uint8Array
	/** The plaintext as UTF-8 bytes, under this key or a rotation's key it learned; throws when none opens it. */
	openBytes(sealed: Uint8Array, aad: string): Buffer
	/** The plaintext as text. */
	open(sealed: Uint8Array, aad: string): string
	/**
	 * HMAC-SHA256 hex of `text` under a subkey of the master key for `purpose`:
	 * a value that can be compared but not reversed or guessed without the key
	 * (docs/operations.md: a login name that names no user is stored only this way).
	 */
	keyedHash(purpose: string, text: string): string
	/**
	 * Learns a rotation's new key from `pending` (sealed under this key) and seals under it from then
	 * on (docs/operations.md: servers switch while the rotation runs); false when it does not open.
	 */
	learn(pending: string): boolean
	/** The id of the key this sealer seals with now (`masterKeyId`), for the rotation's roll call. */
	keyId(): string
}

/**
 * A master key's id: a one-way fingerprint (SHA-256 of a labelled copy of the key), so the database
 * can say which key a server uses, or that a key was retired, without holding anything that opens data.
 */
export const masterKeyId = (key: Uint8Array): string =>
	createHash('sha256').update('cfgsync master key id\0').update(key).digest('hex').slice(0, 32)

/** AAD of the pending key a rotation stores in `meta`. */
const PENDING_AAD = 'meta:master_key_next'

/** A rotation's new key, sealed under the current one, as stored in `meta` (base64). */
export const sealPendingKey = (sealer: Pick<Sealer, 'seal'>, next: Uint8Array): string =>
	Buffer.from(sealer.seal(Buffer.from(next).toString('base64'), PENDING_AAD)).toString('base64')

/** The new key in a stored pending value, or undefined when `sealer`'s key does not open it. */
export function openPendingKey(sealer: Pick<Sealer, 'open'>, pending: string): Buffer | undefined {
	try {
		return parseMasterKey(sealer.open(Buffer.from(pending, 'base64'), PENDING_AAD))
	} catch {
		return undefined
	}
}

function sealWith(key: KeyObject, plaintext: string | Uint8Array, aad: string): Uint8Array {
	const nonce = randomBytes(NONCE_BYTES)
	const cipher = createCipheriv('aes-256-gcm', key, nonce)
	cipher.setAAD(Buffer.from(aad, 'utf8'))
	const body = typeof plaintext === 'string' ? cipher.update(plaintext, 'utf8') : cipher.update(plaintext)
	const final = cipher.final()
	return Buffer.concat([nonce, body, final, cipher.getAuthTag()])
}

function openWith(key: KeyObject, sealed: Uint8Array, aad: string): Buffer {
	if (sealed.length < NONCE_BYTES + TAG_BYTES) throw new Error('sealed record is too short')
	const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength)
	const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, NONCE_BYTES))
	decipher.setAAD(Buffer.from(aad, 'utf8'))
	decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES))
	const body = decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES))
	const final = decipher.final()
	return final.length === 0 ? body : Buffer.concat([body, final])
}

export function createSealer(masterKey: Uint8Array): Sealer {
	// One KeyObject for the process: no key material is copied per record.
	const key: KeyObject = createSecretKey(masterKey)
	const subkeys = new Map<string, Buffer>()
	// A rotation's new key, once learned, by the pending value it came from (undefined: it did not open).
	const learned = new Map<string, KeyObject | undefined>()
	// The key new records are sealed with: this one until a rotation's key is learned.
	let current = { key, id: masterKeyId(masterKey) }
	// Every key this sealer knows, the one it seals with first (rebuilt only when a key is learned: reads are hot).
	let knownKeys: KeyObject[] = [key]
	const known = () => knownKeys
	const learnKey = (pending: string): KeyObject | undefined => {
		if (!learned.has(pending)) {
			let next: Buffer | undefined
			for (const candidate of known()) {
				next = openPendingKey({ open: (sealed, aad) => openWith(candidate, sealed, aad).toString('utf8') }, pending)
				if (next) break
			}
			const object = next && createSecretKey(next)
			learned.set(pending, object)
			if (next && object) {
				current = { key: object, id: masterKeyId(next) }
				knownKeys = [
					object,
					...[key, ...learned.values()].filter(
						(candidate): candidate is KeyObject => candidate !== undefined && candidate !== object
					)
				]
			}
		}
		return learned.get(pending)
	}
	const openBytes = (sealed: Uint8Array, aad: string): Buffer => {
		let failure: unknown
		for (const candidate of known()) {
			try {
				return openWith(candidate, sealed, aad)
			} catch (error) {
				failure ??= error
			}
		}
		throw failure
	}
	return {
		seal: (plaintext, aad, pending) =>
			sealWith((pending !== undefined && learnKey(pending)) || current.key, plaintext, aad),
		openBytes,
		open: (sealed, aad) => openBytes(sealed, aad).toString('utf8'),
		learn: (pending) => learnKey(pending) !== undefined,
		keyId: () => current.id,
		keyedHash(purpose, text) {
			let subkey = subkeys.get(purpose)
			if (subkey === undefined) {
				subkey = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), `cfgsync keyed hash: ${purpose}`, 32))
				subkeys.set(purpose, subkey)
			}
			return createHmac('sha256', subkey).update(text, 'utf8').digest('hex')
		}
	}
}
