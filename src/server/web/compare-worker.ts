// A worker thread of web/comparisons.ts: one comparison at a time, away from the thread that answers requests.
import { diffData, TooLargeToCompare, type FileDiff, type Whitespace } from './diff'

declare const self: Worker

/** Two versions' stored data (JSON bytes, parsed here rather than on the thread that answers requests). */
export interface CompareJob {
	older: Uint8Array
	newer: Uint8Array
	whitespace: Whitespace
}

export type CompareAnswer = { files: FileDiff[] } | { tooLarge: true } | { failed: string }

self.onmessage = (message: MessageEvent<CompareJob>) => {
	const { older, newer, whitespace } = message.data
	let answer: CompareAnswer
	try {
		const parse = (bytes: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(bytes))
		answer = { files: diffData(parse(older), parse(newer), undefined, whitespace) }
	} catch (error) {
		answer = error instanceof TooLargeToCompare ? { tooLarge: true } : { failed: String(error) }
	}
	self.postMessage(answer)
}
