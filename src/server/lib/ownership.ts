import { chownSync, existsSync, lstatSync, statSync } from 'node:fs'

/**
 * docs/operations.md: an admin command run as root (as the docs' examples may be read) leaves every file it creates
 * or replaces owned by the data directory's owner, so the service user can open it afterwards. A
 * no-op unless this process is root and the directory belongs to someone else; links are never followed.
 */
export function giveToDataDirOwner(dataDir: string, files: string[]): void {
	if (process.getuid?.() !== 0 || !existsSync(dataDir)) return
	const { uid, gid } = statSync(dataDir)
	if (uid === 0) return
	for (const file of files) {
		try {
			const now = lstatSync(file)
			if (now.isSymbolicLink() || (now.uid === uid && now.gid === gid)) continue
			chownSync(file, uid, gid)
		} catch {
			// Gone meanwhile (a WAL removed on close): nothing to give.
		}
	}
}
