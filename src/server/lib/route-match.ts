/**
 * The route pattern a path belongs to, for requests that failed before Elysia routed them (the key
 * check in `onRequest`, say, when the database does not answer): §5 and §10 count a failure under its
 * route, never `unmatched`. Built once from the app's route table, on the first such failure.
 */
export function routeMatcher(routes: () => { method: string; path: string }[]) {
	let table: { method: string; pattern: string; regex: RegExp }[] | undefined
	const literal = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&')
	const build = () =>
		routes()
			// Static patterns first: /api/configs/latest wins over /api/configs/:id.
			.map((route) => ({
				method: route.method,
				pattern: route.path,
				params: (route.path.match(/[:*]/g) ?? []).length,
				regex: new RegExp(
					`^${route.path
						.split('/')
						.map((segment) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : literal(segment)))
						.join('/')}/?$`
				)
			}))
			.sort((a, b) => a.params - b.params)
	return (method: string, path: string): string | undefined => {
		table ??= build()
		return table.find((route) => (route.method === method || route.method === 'ALL') && route.regex.test(path))?.pattern
	}
}
