import { readdirSync, realpathSync, statSync } from 'node:fs'
import { join, sep } from 'node:path'

/**
 * docs/client.md: the client offered by the server that teammates already
 * reach. The npm package (`cfgsync.tgz`, one bundled file that runs on Node
 * 20+) is embedded in the server binary by `npm run build`; the standalone
 * executables (~90 MB each, too big to embed) are served from the downloads
 * directory when the operator puts them there (`npm run build:release`).
 */

export const PACKAGE_NAME = 'cfgsync.tgz'
export const SUMS_NAME = 'SHA256SUMS'
/** Names served from the downloads directory: plain file names, nothing hidden, no path. */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/

/**
 * The client package embedded by `bun build --compile … dist/cfgsync.tgz`:
 * Bun names extra entry points `cfgsync-<hash>.tgz` and lists them in
 * Bun.embeddedFiles. Undefined when not compiled (tests, `bun src/index.ts`),
 * or built without it.
 */
export function embeddedClientPackage(): Blob | undefined {
	const files = (globalThis as { Bun?: { embeddedFiles?: readonly Blob[] } }).Bun?.embeddedFiles ?? []
	return files.find((file) => /^cfgsync(-[a-z0-9]+)?\.tgz$/.test((file as Blob & { name?: string }).name ?? ''))
}

export interface DownloadFile {
	name: string
	size: number
	sha256: string
	path: string
}

async function sha256Of(blob: Blob): Promise<string> {
	const hasher = new Bun.CryptoHasher('sha256')
	for await (const chunk of blob.stream()) hasher.update(chunk)
	return hasher.digest('hex')
}

export function createDownloads(options: { dir?: string; clientPackage?: Blob }) {
	const { dir, clientPackage } = options
	let packageSum: Promise<string> | undefined
	/** Sums of the directory's files by name, size and modification time: a replaced file is hashed again. */
	const sums = new Map<string, { stamp: string; sha256: Promise<string> }>()

	/** The directory's files that may be served: regular files (links only when they stay inside it). */
	function listed(): { name: string; size: number; path: string; stamp: string }[] {
		if (dir === undefined) return []
		let root: string
		let names: string[]
		try {
			root = realpathSync(dir)
			names = readdirSync(root)
		} catch {
			return []
		}
		const out: { name: string; size: number; path: string; stamp: string }[] = []
		for (const name of names.sort()) {
			if (!SAFE_NAME.test(name) || name === SUMS_NAME || name === PACKAGE_NAME) continue
			const path = join(root, name)
			try {
				const real = realpathSync(path)
				if (!real.startsWith(root + sep)) continue
				const stats = statSync(real)
				if (!stats.isFile()) continue
				out.push({ name, size: stats.size, path: real, stamp: `${stats.size}:${stats.mtimeMs}` })
			} catch {
				// gone meanwhile, or a link to nothing
			}
		}
		return out
	}

	const sumOf = (file: { name: string; path: string; stamp: string }): Promise<string> => {
		const known = sums.get(file.name)
		if (known && known.stamp === file.stamp) return known.sha256
		const sha256 = sha256Of(Bun.file(file.path))
		sums.set(file.name, { stamp: file.stamp, sha256 })
		sha256.catch(() => sums.delete(file.name))
		return sha256
	}

	return {
		dir,
		/** The embedded npm package and its SHA-256, or undefined when this server was built without it. */
		async clientPackage(): Promise<{ blob: Blob; sha256: string } | undefined> {
			if (!clientPackage) return undefined
			packageSum ??= sha256Of(clientPackage)
			return { blob: clientPackage, sha256: await packageSum }
		},
		/** The executables (or any file) the operator put in the downloads directory, with their sums. */
		async files(): Promise<DownloadFile[]> {
			return Promise.all(
				listed().map(async (file) => ({ name: file.name, size: file.size, path: file.path, sha256: await sumOf(file) }))
			)
		},
		/** Names only, without hashing (for the log line at start). */
		names(): string[] {
			return listed().map((file) => file.name)
		},
		/** One file of the directory by its exact name; undefined for anything else (a path, `..`, a link out). */
		file(name: string): { name: string; path: string } | undefined {
			return listed().find((file) => file.name === name)
		},
		/** `sha256sum -c` input for everything served: the package and the directory's files. */
		async sumsFile(): Promise<string> {
			const lines: string[] = []
			const pkg = await this.clientPackage()
			if (pkg) lines.push(`${pkg.sha256}  ${PACKAGE_NAME}`)
			for (const file of await this.files()) lines.push(`${file.sha256}  ${file.name}`)
			return lines.map((line) => `${line}\n`).join('')
		}
	}
}

export type Downloads = ReturnType<typeof createDownloads>
