import type { ChangeSignalSource } from './types'

/** docs/api.md "Live changes": how often a SQLite file is asked whether another process committed. */
export const DATA_VERSION_MS = 100

/**
 * Calls `onChange` when another process (another instance, a worker, an admin command) may have added to the
 * change feed: PostgreSQL's LISTEN on the channel the feed's commit trigger notifies, or SQLite's
 * `PRAGMA data_version`, which moves when another connection commits to the file. Writes of this process
 * tell the broker themselves. Runs only while streams are open; returns the function that stops it.
 */
export function watchFeed(source: ChangeSignalSource, onChange: () => void): () => void {
	if (source.engine === 'sqlite') {
		let seen = source.dataVersion()
		const timer = setInterval(() => {
			const now = source.dataVersion()
			if (now !== seen) {
				seen = now
				onChange()
			}
		}, DATA_VERSION_MS)
		return () => clearInterval(timer)
	}
	let stopped = false
	let unlisten: (() => Promise<void>) | undefined
	// After a reconnect, notifications sent meanwhile are lost: the feed is read again from the cursor.
	source
		.listen(onChange, onChange)
		.then((stop) => {
			if (stopped) void stop().catch(() => {})
			else unlisten = stop
		})
		.catch(() => {
			// No listening connection (the database is down): the broker's timer still reads the feed.
		})
	return () => {
		stopped = true
		void unlisten?.().catch(() => {})
	}
}
