import { SEARCH_MAX_LENGTH } from '../lib/search'
import type { ListPage } from '../modules/configs/service'

// Long lists (docs/web.md, search and pages): Configs, the Admin page's users and Activity have a "Search" field
// and show 50 rows a page, with "Next" and "Previous" links. Both are query parameters, so a page can be
// bookmarked, reloaded and shared, and everything works without JavaScript.

export const PAGE_SIZE = 50

/** What a list page was asked for: `q` (trimmed, at most SEARCH_MAX_LENGTH characters) and `page` (from 1). */
export interface ListQuery {
	search: string
	page: number
}

/** The highest page number taken from a URL: past it the offset would cost more than any real list needs. */
const MAX_PAGE = 10_000

export function listQueryOf(url: string): ListQuery {
	const params = new URL(url).searchParams
	const search = (params.get('q') ?? '').trim().slice(0, SEARCH_MAX_LENGTH)
	const page = Number(params.get('page') ?? '1')
	return { search, page: Number.isInteger(page) && page >= 1 && page <= MAX_PAGE ? page : 1 }
}

/**
 * The list query of an in-place change (htmx): the page the browser shows, named by its `HX-Current-URL`
 * header, so the list swapped in keeps its search and page.
 */
export function currentListQuery(request: Request, path: string): ListQuery {
	const current = request.headers.get('hx-current-url')
	if (current) {
		try {
			const url = new URL(current)
			if (url.pathname === path) return listQueryOf(url.href)
		} catch {
			// Not a URL: the first page, unfiltered.
		}
	}
	return { search: '', page: 1 }
}

/** The store's page for a query: one row more than shown, which tells whether there is a next page. */
export const storePageOf = (query: ListQuery): ListPage => ({
	search: query.search,
	offset: (query.page - 1) * PAGE_SIZE,
	limit: PAGE_SIZE + 1
})

/** The rows to show of what the store returned for `storePageOf`, and whether more follow. */
export function shownRows<Row>(rows: Row[]): { rows: Row[]; more: boolean } {
	return { rows: rows.slice(0, PAGE_SIZE), more: rows.length > PAGE_SIZE }
}

/** A path with query parameters, leaving out the empty ones (and page 1). */
export function hrefOf(path: string, params: Record<string, string | number | undefined>): string {
	const query = new URLSearchParams()
	for (const [name, value] of Object.entries(params)) {
		if (value === undefined || value === '' || (name === 'page' && value === 1)) continue
		query.set(name, String(value))
	}
	const text = query.toString()
	return text === '' ? path : `${path}?${text}`
}

/** The "Previous" and "Next" links of a page-numbered list. */
export const pagesOf = (path: string, query: ListQuery, more: boolean) => ({
	previous: query.page > 1 ? hrefOf(path, { q: query.search, page: query.page - 1 }) : undefined,
	next: more ? hrefOf(path, { q: query.search, page: query.page + 1 }) : undefined
})

/**
 * The search form: a GET form, so the results are a page of their own. `what` names what is searched, in the
 * hint under the field; the field is labelled "Search".
 */
export function SearchForm({
	action,
	search,
	what,
	id = 'search'
}: {
	action: string
	search: string
	what: string
	id?: string
}) {
	return (
		<form method="get" action={action} class="search">
			<label for={id}>Search</label>
			<div class="search-row">
				<input
					id={id}
					name="q"
					type="search"
					value={search}
					maxlength={SEARCH_MAX_LENGTH}
					aria-describedby={`${id}-hint`}
				/>
				<button type="submit" class="secondary">
					Search
				</button>
				{search === '' ? null : (
					<a href={action} class="button secondary">
						Show all
					</a>
				)}
			</div>
			<p id={`${id}-hint`} class="hint">
				{what}
			</p>
		</form>
	)
}

/** "Previous" and "Next" (rel=prev, rel=next), when there is a page either way; `label` names the navigation. */
export function Pager({ previous, next, label }: { previous?: string; next?: string; label: string }) {
	if (previous === undefined && next === undefined) return null
	return (
		<nav class="pager" aria-label={label}>
			{previous === undefined ? null : (
				<a href={previous} rel="prev" class="button secondary">
					Previous
				</a>
			)}
			{next === undefined ? null : (
				<a href={next} rel="next" class="button secondary">
					Next
				</a>
			)}
		</nav>
	)
}

/** What a list says when a search found nothing. */
export const NoMatch = ({ search, path }: { search: string; path: string }) => (
	<p class="empty">
		Nothing matches “{search}”. Try part of a name, or <a href={path}>show all</a>.
	</p>
)
