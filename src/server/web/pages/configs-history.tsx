import { onlyFiles } from '../../../shared/config-files'
import { AppError } from '../../lib/errors'
import { htmlResponse, NO_STORE } from '../../lib/http'
import type { CompareJob } from '../compare-worker'
import { type Comparisons, ComparisonsBusy, FoldNotShown } from '../comparisons'
import type { Whitespace } from '../diff'
import { type CompareView, compareHref } from '../diff-view'
import {
	attempt,
	field,
	fragment,
	isHtmx,
	page,
	redirect,
	type ChangeContext,
	type PageContext,
	type WebDeps
} from '../kit'
import { ConfirmPage, configTitle, Layout, type ViewContext } from '../layout'
import { parseData } from './configs'

// Comparing two versions of a config and rolling back to one (docs/web.md).

export interface CompareData extends CompareView {
	name: string
	tool: string
	/** What the page's #diff holds, made in the comparison's worker thread (web/diff-view.tsx). */
	diffHtml: string
	/** The versions the pickers offer (the newest page of the history, plus the two compared). */
	versions: { id: string; version: number }[]
}

/** A roll back asked for again once done (Back to its confirmation): the version is current already, nothing to ask. */
function AlreadyCurrent({
	ctx,
	id,
	title,
	config,
	version,
	current
}: {
	ctx: ViewContext
	id: string
	title: string
	config: string
	version: number
	current: number
}) {
	return (
		<Layout ctx={ctx} title={title}>
			<h1>{title}</h1>
			<p>
				{version === current
					? `Version ${version} is the current version of ${config}: there is nothing to roll back.`
					: `Version ${version} is already current: version ${current}, the current version of ${config}, holds its data (rolled back to it, or the same data pushed again), so rolling back again would change nothing.`}
			</p>
			<p>
				<a href={`/configs/${id}`} class="button">
					Go to {config}
				</a>
			</p>
		</Layout>
	)
}

/** The diff (or that it is too large to compare here): swapped in place by htmx when the view is toggled. */
const DiffView = ({ compare }: { compare: CompareData }) => (
	<div id="diff" dangerouslySetInnerHTML={{ __html: compare.diffHtml }} />
)

/** The two versions to compare and whether whitespace counts: a GET form that works without JavaScript. */
function ComparePickers({ compare }: { compare: CompareData }) {
	const picker = (name: 'from' | 'to', label: string, chosen: string) => (
		<>
			<label for={`compare-${name}`}>{label}</label>
			<select id={`compare-${name}`} name={name}>
				{compare.versions.map((version) => (
					<option value={version.id} selected={version.id === chosen}>
						{version.version}
					</option>
				))}
			</select>
		</>
	)
	return (
		<form
			method="get"
			action={`/configs/${compare.configId}/compare`}
			class="compare-form"
			aria-label="Compare two versions"
		>
			{picker('from', 'From version', compare.from.id)}
			{picker('to', 'To version', compare.to.id)}
			{compare.view === 'split' ? <input type="hidden" name="view" value="split" /> : null}
			<label class="check">
				<input type="checkbox" name="ws" value="ignore" checked={compare.whitespace === 'ignore'} />
				Ignore whitespace
			</label>
			<button type="submit">Compare</button>
		</form>
	)
}

export function ComparePage({ ctx, compare }: { ctx: ViewContext; compare: CompareData }) {
	return (
		<Layout
			ctx={ctx}
			title={`Compare ${configTitle(compare)}, version ${compare.from.version} → ${compare.to.version}`}
		>
			<p class="crumbs">
				<a href="/configs">Configs</a> / <a href={`/configs/${compare.configId}`}>{configTitle(compare)}</a>
			</p>
			<h1>
				{configTitle(compare)}: version {compare.from.version} → version {compare.to.version}
			</h1>
			<ComparePickers compare={compare} />
			<p class="legend">
				<span class="sign">+</span> added lines, <span class="sign">−</span> removed lines, <mark>marked</mark> the
				words that changed in a line.
			</p>
			<DiffView compare={compare} />
		</Layout>
	)
}

/** A folded run's lines on a page of their own: what a fold's link shows without a script (docs/web.md). */
function FoldPage({
	ctx,
	compare,
	path,
	html
}: {
	ctx: ViewContext
	compare: CompareData
	path: string | null
	html: string
}) {
	const versions = `version ${compare.from.version} → version ${compare.to.version}`
	return (
		<Layout ctx={ctx} title={`${path ?? 'Data'}, unchanged lines · Compare ${configTitle(compare)}, ${versions}`}>
			<p class="crumbs">
				<a href="/configs">Configs</a> / <a href={`/configs/${compare.configId}`}>{configTitle(compare)}</a> /{' '}
				<a href={compareHref(compare)}>{versions}</a>
			</p>
			<h1>{path !== null ? <code>{path}</code> : 'Data'}: unchanged lines</h1>
			<div dangerouslySetInnerHTML={{ __html: html }} />
		</Layout>
	)
}

/** A line number in a fold's address: a whole number from 1, of at most nine digits; else a 400. */
function lineNumber(query: URLSearchParams, name: 'start' | 'end' | 'old'): number {
	const value = query.get(name) ?? ''
	if (!/^[1-9][0-9]{0,8}$/.test(value))
		throw new AppError('invalid_request', `This address's "${name}" is not a line number.`)
	return Number(value)
}

/** A file name for a download: the config's name and tool and the version, in characters every system accepts. */
const fileNameOf = (name: string, tool: string, version: number) =>
	`${`${name}-${tool}`.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 100)}-v${version}.json`

/** A file's own name (its path's last part) in characters every system accepts. */
const safeFileName = (path: string) =>
	(path.split('/').pop() ?? '').replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 100) || 'file.txt'

/** How many versions the comparison's pickers offer: the newest page of the history, as on the config's page. */
const PICKER_VERSIONS = 50

/**
 * What the page's #diff holds (docs/web.md: decided by size), made and rendered in a worker thread, one per
 * core at once. When every slot stays taken for a moment: 503 with Retry-After.
 */
async function compared(comparisons: Comparisons, job: CompareJob) {
	try {
		return await comparisons.compare(job)
	} catch (error) {
		if (error instanceof FoldNotShown) throw new AppError('invalid_request', error.message)
		if (!(error instanceof ComparisonsBusy)) throw error
		throw new AppError(
			'unavailable',
			`The server is busy comparing other versions: try again in ${error.retryAfterSeconds} seconds, or download both versions from the config's history and compare them on your machine.`,
			{ headers: { 'retry-after': String(error.retryAfterSeconds) } }
		)
	}
}

export const configsHistoryPages = ({ configs, policy, comparisons }: WebDeps) => ({
	/**
	 * One version's data as a file (docs/web.md: "Download version N" on each history row, and what a comparison
	 * too large to make here offers), or with `?file=PATH` that one file itself ("Download" by each file). The
	 * current version needs no history (a free plan downloads what its page shows); never cached.
	 */
	download: ({ request, web, view, params }: PageContext & { params: { id: string; versionId: string } }) =>
		attempt(request, view, async () => {
			const config = await configs.get(web, params.id, undefined)
			if (config.notModified) throw new AppError('internal', 'unexpected 304')
			const { name, tool, currentVersionId, version: currentNumber } = config.fields
			const version =
				params.versionId === currentVersionId
					? { data: config.data, number: currentNumber }
					: await configs
							.version(web, params.id, params.versionId)
							.then((found) => ({ data: found.data, number: found.fields.version }))
			const file = new URL(request.url).searchParams.get('file')
			if (file === null) {
				return new Response(new Uint8Array(version.data), {
					headers: {
						'content-type': 'application/json;charset=utf-8',
						'content-disposition': `attachment; filename="${fileNameOf(name, tool, version.number)}"`,
						'cache-control': 'no-store'
					}
				})
			}
			const text = onlyFiles(parseData(version.data))?.[file]
			if (typeof text !== 'string') throw new AppError('not_found', 'This version has no file of that name.')
			return new Response(text, {
				headers: {
					'content-type': 'text/plain;charset=utf-8',
					'content-disposition': `attachment; filename="${safeFileName(file)}"`,
					'cache-control': 'no-store'
				}
			})
		}),

	compare: ({ request, web, view, params }: PageContext & { params: { id: string } }) =>
		attempt(request, view, async () => {
			const query = new URL(request.url).searchParams
			const fromId = query.get('from') ?? ''
			const toId = query.get('to') ?? ''
			if (fromId === '' || toId === '') return redirect(`/configs/${params.id}#history`)
			const [from, to] = await Promise.all([
				configs.version(web, params.id, fromId),
				configs.version(web, params.id, toId)
			])
			const config = await configs.get(web, params.id, undefined)
			if (config.notModified) throw new AppError('internal', 'unexpected 304')
			const whitespace: Whitespace = query.get('ws') === 'ignore' ? 'ignore' : 'show'
			const versions: CompareData['versions'] = []
			for await (const version of (
				await configs.versions(web, params.id, { limit: PICKER_VERSIONS }, { decrypt: false })
			).versions)
				versions.push({ id: version.fields.id, version: version.fields.version })
			for (const chosen of [from, to])
				if (!versions.some((version) => version.id === chosen.fields.id))
					versions.push({ id: chosen.fields.id, version: chosen.fields.version })
			versions.sort((a, b) => b.version - a.version)
			const shown: CompareView = {
				configId: params.id,
				from: { id: from.fields.id, version: from.fields.version },
				to: { id: to.fields.id, version: to.fields.version },
				view: query.get('view') === 'split' ? 'split' : 'unified',
				whitespace
			}
			const compare: CompareData = {
				...shown,
				name: config.fields.name,
				tool: config.fields.tool,
				diffHtml: await compared(comparisons, { older: from.data, newer: to.data, view: shown }),
				versions
			}
			if (isHtmx(request)) return fragment(<DiffView compare={compare} />)
			return page(<ComparePage ctx={view} compare={compare} />)
		}),

	/**
	 * A folded run of unchanged lines, opened (docs/web.md): the comparison's page holds only its count. For htmx
	 * the rows to swap into the fold, else a page of them (the fold's link without a script). The same access as
	 * the comparison; the run is checked against both versions in the comparison's worker (web/diff.ts foldOf),
	 * so anything but a run of unchanged lines, at most MAX_FOLD_LINES long, is a 400.
	 */
	fold: ({ request, web, view, params }: PageContext & { params: { id: string } }) =>
		attempt(request, view, async () => {
			const query = new URL(request.url).searchParams
			const fromId = query.get('from') ?? ''
			const toId = query.get('to') ?? ''
			if (fromId === '' || toId === '') throw new AppError('invalid_request', 'This address names no two versions.')
			const table = query.get('view') ?? 'unified'
			if (table !== 'unified' && table !== 'split')
				throw new AppError('invalid_request', 'This address\'s "view" is neither "unified" nor "split".')
			const run = {
				path: query.get('file'),
				start: lineNumber(query, 'start'),
				end: lineNumber(query, 'end'),
				old: lineNumber(query, 'old')
			}
			const [from, to] = await Promise.all([
				configs.version(web, params.id, fromId),
				configs.version(web, params.id, toId)
			])
			const shown: CompareView = {
				configId: params.id,
				from: { id: from.fields.id, version: from.fields.version },
				to: { id: to.fields.id, version: to.fields.version },
				view: table,
				whitespace: query.get('ws') === 'ignore' ? 'ignore' : 'show'
			}
			const htmx = isHtmx(request)
			const html = await compared(comparisons, {
				older: from.data,
				newer: to.data,
				view: shown,
				fold: { ...run, page: !htmx }
			})
			if (htmx) return htmlResponse(html, { headers: NO_STORE })
			const config = await configs.get(web, params.id, undefined)
			if (config.notModified) throw new AppError('internal', 'unexpected 304')
			const compare: CompareData = {
				...shown,
				name: config.fields.name,
				tool: config.fields.tool,
				diffHtml: '',
				versions: []
			}
			return page(<FoldPage ctx={view} compare={compare} path={run.path} html={html} />)
		}),

	/**
	 * Asks first, naming the version (docs/decisions.md: a confirmation that works without JavaScript). When the
	 * current version already holds that version's data (rolled back to it, then Back to this page), it says so instead
	 * of asking again (docs/web.md).
	 */
	rollbackPage: ({ request, web, view, params }: PageContext & { params: { id: string } }) =>
		attempt(request, view, async () => {
			const versionId = new URL(request.url).searchParams.get('version') ?? ''
			const target = await configs.version(web, params.id, versionId)
			const config = await configs.get(web, params.id, undefined)
			if (config.notModified) throw new AppError('internal', 'unexpected 304')
			const { name, tool } = config.fields
			if (!(await policy.can(web, config.fields, 'rollback'))) {
				throw new AppError(
					'forbidden',
					"Rolling back this config needs the Pro or Team plan (ask this server's admin to change your plan) and, for a team config, the admin or owner role (ask the team's owner)."
				)
			}
			if (target.fields.hash === config.hash)
				return page(
					<AlreadyCurrent
						ctx={view}
						id={params.id}
						title={`Roll back ${name}`}
						config={configTitle({ tool, name })}
						version={target.fields.version}
						current={config.fields.version}
					/>
				)
			return page(
				<ConfirmPage
					ctx={view}
					title={`Roll back ${name}`}
					question={`Make version ${target.fields.version} of ${name} (${tool}) current again? This adds a new version with its data; every version stays in the history.`}
					action={`/configs/${params.id}/rollback`}
					button="Roll back"
					cancel={`/configs/${params.id}`}
					fields={{ version: versionId }}
				/>
			)
		}),

	rollback: ({ request, web, view, actor, params, body }: ChangeContext & { params: { id: string } }) =>
		attempt(request, view, async () => {
			const versionId = field(body, 'version')
			// The same roll back sent again (a second tab, a confirmation the browser kept): nothing to add.
			const [target, config] = await Promise.all([
				configs.version(web, params.id, versionId),
				configs.get(web, params.id, undefined)
			])
			if (!config.notModified && target.fields.hash === config.hash)
				return redirect(`/configs/${params.id}?notice=already-current`)
			await configs.rollback(actor, params.id, versionId)
			return redirect(`/configs/${params.id}?notice=rolled-back`)
		})
})
