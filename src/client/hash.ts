import { createHash } from 'node:crypto'
import { canonicalJson } from '../shared/content-hash'

/**
 * Hashes in the client through node:crypto, so the client runs on Node as
 * well as Bun (docs/client.md); the server's lib/crypto.ts uses Bun's hasher.
 */
export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex')

/** docs/api.md content hash, the same value the server computes (test/client/hash.test.ts checks it). */
export const contentHash = (data: unknown): string => sha256(canonicalJson(data))

/** A file's hash in the sync state. */
export const fileHash = sha256
