import { attempt, page, type PageContext, type WebDeps } from '../kit'
import { ActivityPage, activityLinks, activityPageOf } from './activity'

// The server's activity (docs/web.md, server admins only): every user's events, searchable, in keyset pages, with
// the sentences and links of the Activity page. Events only, as they are recorded: never config data.

const PATH = '/admin/activity'

export const adminActivityPages = (deps: WebDeps) => ({
	show: ({ request, web, view }: PageContext) =>
		attempt(request, view, async () => {
			const { events, search, pager } = await activityPageOf(request, PATH, (query) => deps.audit.everyone(web, query))
			const links = await activityLinks(deps, web, events)
			return page(
				<ActivityPage
					ctx={view}
					title="Server activity"
					path={PATH}
					events={events}
					search={search}
					reader={{ viewerId: web.userId, links }}
					pager={pager}
					back={{ href: '/admin', label: 'Admin' }}
					lead="Every user's sign-ins, keys, pushes, team and account changes, newest first, with where each came from. Only what happened: never what a config holds."
				/>
			)
		})
})
