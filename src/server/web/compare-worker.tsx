// A worker thread of web/comparisons.ts: one comparison at a time, compared and rendered away from the
// thread that answers requests (docs/web.md).
import { renderToString } from 'preact-render-to-string'
import { diffData, TooLargeToCompare } from './diff'
import { type CompareView, DiffContent } from './diff-view'

declare const self: Worker

/** Two versions' stored data (JSON bytes, parsed here) and which comparison of them the page shows. */
export interface CompareJob {
	older: Uint8Array
	newer: Uint8Array
	view: CompareView
}

/** The HTML of the page's #diff: the diff, or that it is too large to compare here. */
export type CompareAnswer = { html: string } | { failed: string }

const parse = (bytes: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(bytes))

self.onmessage = (message: MessageEvent<CompareJob>) => {
	const { older, newer, view } = message.data
	let answer: CompareAnswer
	try {
		let files: ReturnType<typeof diffData> | undefined
		try {
			files = diffData(parse(older), parse(newer), undefined, view.whitespace)
		} catch (error) {
			if (!(error instanceof TooLargeToCompare)) throw error
		}
		answer = { html: renderToString(<DiffContent compare={view} files={files} />) }
	} catch (error) {
		answer = { failed: String(error) }
	}
	self.postMessage(answer)
}
