import { AppError } from '../../lib/errors'
import type { ComponentChildren } from 'preact'
import { type Comparisons, ComparisonsBusy } from '../comparisons'
import { DIFF_LIMITS, sideBySide, type DiffLine, type FileDiff, type Gap, type Whitespace } from '../diff'
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
import { ConfirmPage, Expands, Layout, type ViewContext } from '../layout'

// Comparing two versions of a config and rolling back to one (docs/web.md).

const Sign = ({ kind }: { kind: DiffLine['kind'] }) => (
	<span class="sign" aria-hidden="true">
		{kind === 'added' ? '+' : kind === 'removed' ? '−' : ' '}
	</span>
)

/** A line's words: the changed ones (against the line it replaces) each in a <mark>. */
const Words = ({ line }: { line: DiffLine }) => (
	<>{line.parts ? line.parts.map((part) => (part.changed ? <mark>{part.text}</mark> : part.text)) : line.text}</>
)

/** A line's text inside <ins>/<del>, with a word for screen readers: marked by more than colour. */
function LineText({ line }: { line: DiffLine }) {
	if (line.kind === 'added')
		return (
			<ins>
				<span class="visually-hidden">added: </span>
				<Words line={line} />
			</ins>
		)
	if (line.kind === 'removed')
		return (
			<del>
				<span class="visually-hidden">removed: </span>
				<Words line={line} />
			</del>
		)
	return <span>{line.text}</span>
}

/**
 * A folded run of unchanged lines (docs/web.md): a button that shows them and their table, which app.js
 * folds (without a script they are simply shown). `id` names the table, once on the page.
 */
function Fold({
	gap,
	columns,
	id,
	children
}: {
	gap: Gap
	columns: number
	id: string
	children: (id: string) => ComponentChildren
}) {
	return (
		<tr class="gap">
			<td colspan={columns}>
				<Expands controls={id} class="fold">
					⋯ {gap.count} unchanged line{gap.count === 1 ? '' : 's'}
				</Expands>
				{children(id)}
			</td>
		</tr>
	)
}

/** The id of a fold's table: the file, the table it is in, and where the run starts, so each is once on a page. */
const foldId = (file: number, table: 'unified' | 'split', gap: Gap) =>
	`fold-${file}-${table}-${gap.lines[0]?.from ?? 0}`

function UnifiedRow({ line }: { line: DiffLine }) {
	return (
		<tr class={line.kind}>
			<td class="ln">{line.from ?? ''}</td>
			<td class="ln">{line.to ?? ''}</td>
			<td class="mark">
				<Sign kind={line.kind} />
			</td>
			<td class="code">
				<LineText line={line} />
			</td>
		</tr>
	)
}

function UnifiedFile({ file, index, extra = '' }: { file: FileDiff; index: number; extra?: string }) {
	return (
		<table class={`diff unified${extra}`}>
			<tbody>
				{file.lines.map((line) =>
					line.kind === 'gap' ? (
						<Fold gap={line} columns={4} id={foldId(index, 'unified', line)}>
							{(id) => (
								<table id={id} class="diff unified" hidden data-folded="">
									<tbody>
										{line.lines.map((same) => (
											<UnifiedRow line={same} />
										))}
									</tbody>
								</table>
							)}
						</Fold>
					) : (
						<UnifiedRow line={line} />
					)
				)}
			</tbody>
		</table>
	)
}

function SplitRow({ left, right }: { left?: DiffLine; right?: DiffLine }) {
	return (
		<tr>
			<td class="ln">{left?.from ?? ''}</td>
			<td class={`mark ${left?.kind ?? 'empty'}`}>{left ? <Sign kind={left.kind} /> : null}</td>
			<td class={`code ${left?.kind ?? 'empty'}`}>{left ? <LineText line={left} /> : null}</td>
			<td class="ln">{right?.to ?? ''}</td>
			<td class={`mark ${right?.kind ?? 'empty'}`}>{right ? <Sign kind={right.kind} /> : null}</td>
			<td class={`code ${right?.kind ?? 'empty'}`}>{right ? <LineText line={right} /> : null}</td>
		</tr>
	)
}

/** Side by side; below 640 px the page shows the one-column table beside it instead (docs/web.md). */
function SplitFile({ file, index }: { file: FileDiff; index: number }) {
	return (
		<table class="diff split wide-only">
			<tbody>
				{sideBySide(file.lines).map((row) =>
					row.gap !== undefined ? (
						<Fold gap={row.gap} columns={6} id={foldId(index, 'split', row.gap)}>
							{(id) => (
								<table id={id} class="diff split" hidden data-folded="">
									<tbody>
										{row.gap?.lines.map((same) => (
											<SplitRow left={same} right={same} />
										))}
									</tbody>
								</table>
							)}
						</Fold>
					) : (
						<SplitRow left={row.left} right={row.right} />
					)
				)}
			</tbody>
		</table>
	)
}

export interface CompareData {
	configId: string
	name: string
	tool: string
	from: { id: string; version: number }
	to: { id: string; version: number }
	/** undefined when the comparison was too large to make here (docs/web.md): the page offers both versions instead. */
	files?: FileDiff[]
	view: 'unified' | 'split'
	whitespace: Whitespace
	/** The versions the pickers offer (the newest page of the history, plus the two compared). */
	versions: { id: string; version: number }[]
}

/** A comparison's address: the two versions, the view and whether whitespace counts. */
export const compareHref = (compare: Pick<CompareData, 'configId' | 'from' | 'to' | 'view' | 'whitespace'>) =>
	`/configs/${compare.configId}/compare?from=${compare.from.id}&to=${compare.to.id}${compare.view === 'split' ? '&view=split' : ''}${compare.whitespace === 'ignore' ? '&ws=ignore' : ''}`

/** Where a version's data is downloaded (docs/web.md): the same rules as viewing it. */
export const downloadHref = (configId: string, versionId: string) =>
	`/configs/${configId}/versions/${versionId}/download`

/** Past the comparison's limits: say so, and offer both versions as files. */
function TooLarge({ compare }: { compare: CompareData }) {
	return (
		<div id="diff">
			<p class="notice" role="status">
				These versions are too large to compare here (more than {DIFF_LIMITS.maxLines.toLocaleString('en')} lines, or
				more than {DIFF_LIMITS.maxEdits.toLocaleString('en')} changed lines). Download both and compare them on your
				machine (for example with <code>diff -u</code>).
			</p>
			<ul class="downloads">
				<li>
					<a href={downloadHref(compare.configId, compare.from.id)} download>
						Download version {compare.from.version}
					</a>
				</li>
				<li>
					<a href={downloadHref(compare.configId, compare.to.id)} download>
						Download version {compare.to.version}
					</a>
				</li>
			</ul>
		</div>
	)
}

const STATUS_TEXT = { added: 'added', removed: 'removed', changed: 'changed', unchanged: 'unchanged' } as const

/** The diff itself: swapped in place by htmx when the view is toggled. */
export function DiffView({ compare }: { compare: CompareData }) {
	if (compare.files === undefined) return <TooLarge compare={compare} />
	const other = compare.view === 'unified' ? 'split' : 'unified'
	const href = (view: CompareData['view']) => compareHref({ ...compare, view })
	const changed = compare.files.filter((file) => file.status !== 'unchanged')
	return (
		<div id="diff">
			<p class="diff-toolbar">
				<span>
					{changed.length === 0
						? 'No differences.'
						: `${changed.length} file${changed.length === 1 ? '' : 's'} changed.`}{' '}
					Showing {compare.view === 'unified' ? 'one column' : 'side by side'}
					{compare.whitespace === 'ignore' ? ', ignoring whitespace' : ''}.
				</span>{' '}
				<a href={href(other)} hx-get={href(other)} hx-target="#diff" hx-swap="outerHTML">
					{other === 'split' ? 'Show side by side' : 'Show in one column'}
				</a>
			</p>
			{compare.files.map((file, index) => (
				<section class="block">
					<h2 class="file-path">
						{file.path !== null ? <code>{file.path}</code> : 'Data'}{' '}
						<span class={`badge ${file.status}`}>{STATUS_TEXT[file.status]}</span>
						{file.status !== 'unchanged' ? (
							<span class="muted">
								{' '}
								+{file.added} −{file.removed}
							</span>
						) : null}
					</h2>
					{file.status === 'unchanged' ? null : compare.view === 'unified' ? (
						<UnifiedFile file={file} index={index} />
					) : (
						<>
							<SplitFile file={file} index={index} />
							<UnifiedFile file={file} index={index} extra=" narrow-only" />
						</>
					)}
				</section>
			))}
		</div>
	)
}

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
			title={`Compare ${compare.name} (${compare.tool}), version ${compare.from.version} → ${compare.to.version}`}
		>
			<p class="crumbs">
				<a href="/configs">Configs</a> / <a href={`/configs/${compare.configId}`}>{compare.name}</a>
			</p>
			<h1>
				{compare.name} <span class="muted">{compare.tool}</span>: version {compare.from.version} → version{' '}
				{compare.to.version}
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

/** A file name for a download: the config's name and tool and the version, in characters every system accepts. */
const fileNameOf = (name: string, tool: string, version: number) =>
	`${`${name}-${tool}`.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 100)}-v${version}.json`

/** How many versions the comparison's pickers offer: the newest page of the history, as on the config's page. */
const PICKER_VERSIONS = 50

/**
 * The diff, or undefined when it is too large to compare here (docs/web.md: decided by size); made in a
 * worker thread, one per core at once. When every slot stays taken for a moment: 503 with Retry-After.
 */
async function compared(
	comparisons: Comparisons,
	older: Uint8Array,
	newer: Uint8Array,
	whitespace: Whitespace
): Promise<FileDiff[] | undefined> {
	try {
		return await comparisons.compare({ older, newer, whitespace })
	} catch (error) {
		if (!(error instanceof ComparisonsBusy)) throw error
		throw new AppError(
			'unavailable',
			`The server is busy comparing other versions: try again in ${error.retryAfterSeconds} seconds, or download both versions from the config's history and compare them on your machine.`,
			{ headers: { 'retry-after': String(error.retryAfterSeconds) } }
		)
	}
}

export const configsHistoryPages = ({ configs, policy, comparisons }: WebDeps) => ({
	/** One version's data as a file (docs/web.md: what a comparison too large to make here offers); never cached. */
	download: ({ request, web, view, params }: PageContext & { params: { id: string; versionId: string } }) =>
		attempt(request, view, async () => {
			const version = await configs.version(web, params.id, params.versionId)
			const config = await configs.get(web, params.id, undefined)
			if (config.notModified) throw new AppError('internal', 'unexpected 304')
			return new Response(new Uint8Array(version.data), {
				headers: {
					'content-type': 'application/json;charset=utf-8',
					'content-disposition': `attachment; filename="${fileNameOf(config.fields.name, config.fields.tool, version.fields.version)}"`,
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
			for await (const version of await configs.versions(web, params.id, { limit: PICKER_VERSIONS }))
				versions.push({ id: version.fields.id, version: version.fields.version })
			for (const chosen of [from, to])
				if (!versions.some((version) => version.id === chosen.fields.id))
					versions.push({ id: chosen.fields.id, version: chosen.fields.version })
			versions.sort((a, b) => b.version - a.version)
			const compare: CompareData = {
				configId: params.id,
				name: config.fields.name,
				tool: config.fields.tool,
				from: { id: from.fields.id, version: from.fields.version },
				to: { id: to.fields.id, version: to.fields.version },
				files: await compared(comparisons, from.data, to.data, whitespace),
				view: query.get('view') === 'split' ? 'split' : 'unified',
				whitespace,
				versions
			}
			if (isHtmx(request)) return fragment(<DiffView compare={compare} />)
			return page(<ComparePage ctx={view} compare={compare} />)
		}),

	/** Asks first, naming the version (docs/decisions.md: a confirmation that works without JavaScript). */
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
					'Rolling back this config needs the Pro or Team plan and, for a team config, the admin or owner role.'
				)
			}
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

	rollback: ({ request, view, actor, params, body }: ChangeContext & { params: { id: string } }) =>
		attempt(request, view, async () => {
			await configs.rollback(actor, params.id, field(body, 'version'))
			return redirect(`/configs/${params.id}?notice=rolled-back`)
		})
})
