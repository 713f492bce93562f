import { ApiError } from '../api'
import type { Session } from '../context'
import { asFileSet } from '../files'
import { CliFailure, failure } from '../output'
import { platform } from '../paths'
import type { Files } from '../sync/engine'
import { neutralFiles } from '../sync/paths'
import type { Target } from '../target'

/** A config's latest version on the server, as a sync step reads it. */
export interface Remote {
	/** The config's id on the server. */
	id: string
	version: number
	hash: string
	/** Keys in neutral form. */
	files: Files
	/** Keys that named a file twice (an old OS-specific key beside the neutral one): the neutral one was used. */
	duplicates: string[]
}

/** The server's current version; undefined when the config does not exist; `unchanged` on a 304 for `etag`. */
export async function fetchRemote(s: Session, t: Target, etag?: string): Promise<Remote | undefined | 'unchanged'> {
	let latest: Awaited<ReturnType<Session['api']['configs']['poll']>>
	try {
		latest = await s.api.configs.poll(t.latest, etag)
	} catch (error) {
		if (error instanceof ApiError) throw failure(error, { server: s.server, what: t.label })
		throw error
	}
	if (latest === 'unchanged' || latest === undefined) return latest
	const set = asFileSet(latest.data)
	if (!set)
		throw new CliFailure(
			`${t.label} on the server is not a set of files (it was not pushed by cfgsync push); nothing written`
		)
	const { files, duplicates } = neutralFiles(set.files, platform())
	return { id: latest.id, version: latest.version, hash: latest.hash, files, duplicates }
}

/**
 * The version of a config that holds exactly what this machine pushed (its
 * content `hash`), if the server has one: the latest, or, when someone pushed
 * since, one of the versions after `after` (the one the push was judged
 * against), read from the history where the plan allows it.
 */
export async function storedVersion(s: Session, t: Target, hash: string, after: number): Promise<number | undefined> {
	let latest: Awaited<ReturnType<Session['api']['configs']['poll']>>
	try {
		latest = await s.api.configs.poll(t.latest)
	} catch (error) {
		if (error instanceof ApiError) throw failure(error, { server: s.server, what: t.label })
		throw error
	}
	if (latest === 'unchanged' || latest === undefined) return undefined
	if (latest.hash === hash) return latest.version
	if (latest.version <= after + 1) return undefined
	try {
		const versions = await s.api.configs.versions(latest.id, { limit: Math.min(latest.version - after, 20) })
		return versions.find((v) => v.version > after && v.hash === hash)?.version
	} catch (error) {
		if (error instanceof ApiError) return undefined // no history on this plan: judged as not stored
		throw error
	}
}
