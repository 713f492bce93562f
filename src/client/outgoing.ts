import { DATA_MAX_BYTES } from '../shared/constants'
import { CliFailure, safe } from './output'
import { type Files, ownValue } from './sync/engine'
import { shown } from './tools'

/**
 * What a push sends, file by file: the files whose content the server's
 * version does not already hold (added or changed) and those it takes out,
 * so every command can name what it sent (or, dry, would send) rather than
 * the whole config (docs/client.md).
 */

export type SentChange = 'added' | 'changed' | 'removed'
export interface Sent {
	key: string
	change: SentChange
}

export function sentFiles(push: Files | undefined, remote: Files | undefined): Sent[] {
	if (push === undefined) return []
	const sent: Sent[] = []
	for (const [key, content] of Object.entries(push)) {
		const before = ownValue(remote, key)
		if (before === undefined) sent.push({ key, change: 'added' })
		else if (before !== content) sent.push({ key, change: 'changed' })
	}
	for (const key of Object.keys(remote ?? {}))
		if (ownValue(push, key) === undefined) sent.push({ key, change: 'removed' })
	return sent.sort((a, b) => (a.key < b.key ? -1 : 1))
}

const KIB = 1024
const size = (bytes: number) => (bytes < KIB ? `${bytes} bytes` : `${Math.ceil(bytes / KIB)} KiB`)

/**
 * A config larger than the server takes (512 KiB of JSON) is refused here,
 * before anything is written or sent, naming the largest files so the person
 * knows what to leave out; the server's own refusal could only say "too large".
 */
export function checkSize(label: string, tool: string, args: string, push: Files | undefined): void {
	if (push === undefined) return
	const total = Buffer.byteLength(JSON.stringify({ files: push }), 'utf8')
	if (total <= DATA_MAX_BYTES) return
	const largest = Object.entries(push)
		.map(([key, content]) => ({ key, bytes: Buffer.byteLength(JSON.stringify(content), 'utf8') }))
		.sort((a, b) => b.bytes - a.bytes)
	const shownFiles = largest.slice(0, 5).map((f) => `${safe(shown(f.key))} (${size(f.bytes)})`)
	const rest = largest.length - shownFiles.length
	throw new CliFailure(
		`${label} would be ${size(total)}, more than the ${DATA_MAX_BYTES / KIB} KiB a config may hold; nothing was sent or written. The largest files: ${shownFiles.join(', ')}${rest > 0 ? `, and ${rest} more` : ''}. Move the big ones out of the tool's directories, or make the config only the files you need: cfgsync push ${tool}${args} --only PATH...`,
		1,
		'too_large'
	)
}

/**
 * In a sync, the file to leave out when the config would be larger than the
 * server takes: the largest one this push changes (docs/sync-model.md, one
 * file that cannot be sent never stops the rest), with why. Undefined when
 * the push fits, or nothing it changes could be left out.
 */
export function largestUnsendable(
	push: Files | undefined,
	remote: Files | undefined
): { key: string; why: string } | undefined {
	if (push === undefined) return undefined
	const total = Buffer.byteLength(JSON.stringify({ files: push }), 'utf8')
	if (total <= DATA_MAX_BYTES) return undefined
	let largest: { key: string; bytes: number } | undefined
	for (const [key, content] of Object.entries(push)) {
		if (content === ownValue(remote, key)) continue
		const bytes = Buffer.byteLength(JSON.stringify(content), 'utf8')
		if (largest === undefined || bytes > largest.bytes) largest = { key, bytes }
	}
	if (largest === undefined) return undefined
	return {
		key: largest.key,
		why: `too large to send (${size(largest.bytes)}): the config would be ${size(total)}, more than the ${DATA_MAX_BYTES / KIB} KiB a config may hold, so it was not sent and the server's copy was not written here`
	}
}
