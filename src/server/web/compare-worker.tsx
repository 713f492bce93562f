// A worker thread of web/comparisons.ts: one comparison at a time, compared and rendered away from the
// thread that answers requests (docs/web.md).
import { renderToString } from 'preact-render-to-string'
import { diffData, type FoldQuery, FoldRefused, foldOf, TooLargeToCompare } from './diff'
import { type CompareView, DiffContent, FoldBody, FoldLines } from './diff-view'

declare const self: Worker

/**
 * Two versions' stored data (JSON bytes, parsed here) and which comparison of them the page shows; with `fold`,
 * only that folded run's lines (opened on the page), which can be as long as a version and so render here too.
 */
export interface CompareJob {
	older: Uint8Array
	newer: Uint8Array
	view: CompareView
	/** A folded run: its lines for the page to swap in, or (`page`) with what they are and the way back. */
	fold?: FoldQuery & { page: boolean }
}

/** The HTML of the page's #diff (the diff, or that it is too large to compare here), or of a fold's lines. */
export type CompareAnswer = { html: string } | { failed: string } | { refused: string }

const parse = (bytes: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(bytes))

function answer({ older, newer, view, fold }: CompareJob): CompareAnswer {
	if (fold) {
		try {
			const { index, lines } = foldOf(parse(older), parse(newer), fold, view.whitespace)
			return {
				html: renderToString(
					fold.page ? (
						<FoldBody compare={view} index={index} lines={lines} />
					) : (
						<FoldLines lines={lines} view={view.view} />
					)
				)
			}
		} catch (error) {
			if (error instanceof FoldRefused) return { refused: error.message }
			throw error
		}
	}
	let files: ReturnType<typeof diffData> | undefined
	try {
		files = diffData(parse(older), parse(newer), undefined, view.whitespace)
	} catch (error) {
		if (!(error instanceof TooLargeToCompare)) throw error
	}
	return { html: renderToString(<DiffContent compare={view} files={files} />) }
}

self.onmessage = (message: MessageEvent<CompareJob>) => {
	let reply: CompareAnswer
	try {
		reply = answer(message.data)
	} catch (error) {
		reply = { failed: String(error) }
	}
	self.postMessage(reply)
}
