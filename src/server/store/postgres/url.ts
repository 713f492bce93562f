// What a PostgreSQL URL is and how it is shown, apart from the driver: the admin commands and the start-up
// need these without loading PostgreSQL's client when the database is SQLite.

/** `postgres://` or `postgresql://`: the URL names a PostgreSQL database rather than a SQLite file. */
export const isPostgresUrl = (url: string | undefined): url is string =>
	url !== undefined && /^postgres(ql)?:\/\//i.test(url)

/** The URL with its password masked, for messages and logs. */
export function describeUrl(url: string): string {
	try {
		const parsed = new URL(url)
		if (parsed.password !== '') parsed.password = '***'
		parsed.searchParams.delete('password')
		return parsed.toString()
	} catch {
		return 'postgres://…'
	}
}
