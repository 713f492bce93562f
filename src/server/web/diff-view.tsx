import { DIFF_LIMITS, sideBySide, type DiffLine, type FileDiff, type Gap, type Whitespace } from './diff'

// What a comparison of two versions shows (docs/web.md). Rendered in the comparison's worker thread
// (web/compare-worker.tsx), so that the thread answering requests never spends its time on a large diff.

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
 * The columns of a diff table (docs/web.md): with `table-layout: fixed` the first row sets the widths, and
 * that row is often a fold spanning them all, which would split the width evenly. A colgroup fixes them
 * whatever the first row is: line numbers and signs narrow, the code the rest.
 */
const UnifiedColumns = () => (
	<colgroup>
		<col class="ln" />
		<col class="ln" />
		<col class="mark" />
		<col class="code" />
	</colgroup>
)

const SplitColumns = () => (
	<colgroup>
		<col class="ln" />
		<col class="mark" />
		<col class="code" />
		<col class="ln" />
		<col class="mark" />
		<col class="code" />
	</colgroup>
)

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

function UnifiedFile({
	file,
	index,
	compare,
	extra = ''
}: {
	file: FileDiff
	index: number
	compare: CompareView
	extra?: string
}) {
	return (
		<table class={`diff unified${extra}`}>
			<UnifiedColumns />
			<tbody>
				{file.lines.map((line) =>
					line.kind === 'gap' ? (
						<Fold gap={line} columns={4} index={index} path={file.path} compare={{ ...compare, view: 'unified' }} />
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
function SplitFile({ file, index, compare }: { file: FileDiff; index: number; compare: CompareView }) {
	return (
		<table class="diff split wide-only">
			<SplitColumns />
			<tbody>
				{sideBySide(file.lines).map((row) =>
					row.gap !== undefined ? (
						<Fold gap={row.gap} columns={6} index={index} path={file.path} compare={compare} />
					) : (
						<SplitRow left={row.left} right={row.right} />
					)
				)}
			</tbody>
		</table>
	)
}

/** The id of a fold's lines: the file, the table it is in, and where the run starts, so each is once on a page. */
const foldId = (file: number, table: CompareView['view'], old: number) => `fold-${file}-${table}-${old}`

/** Where a folded run's lines are fetched from when it is opened, and shown on a page of their own without a script. */
export const foldHref = (compare: CompareView, path: string | null, gap: Gap) => {
	const first = gap.lines[0]
	const last = gap.lines[gap.lines.length - 1]
	const query = new URLSearchParams({ from: compare.from.id, to: compare.to.id })
	if (path !== null) query.set('file', path)
	query.set('start', String(first?.to ?? 0))
	query.set('end', String(last?.to ?? 0))
	query.set('old', String(first?.from ?? 0))
	if (compare.view === 'split') query.set('view', 'split')
	if (compare.whitespace === 'ignore') query.set('ws', 'ignore')
	return `/configs/${compare.configId}/compare/fold?${query}`
}

/**
 * A folded run of unchanged lines (docs/web.md). The page holds only its count: the button (app.js) fetches
 * the lines into the part it controls when first opened and then opens and folds it; without a script the
 * link shows them on a page of their own. `compare.view` is the table the fold is in.
 */
function Fold({
	gap,
	columns,
	index,
	path,
	compare
}: {
	gap: Gap
	columns: number
	index: number
	path: string | null
	compare: CompareView
}) {
	const id = foldId(index, compare.view, gap.lines[0]?.from ?? 0)
	const href = foldHref(compare, path, gap)
	const label = `⋯ ${gap.count.toLocaleString('en')} unchanged line${gap.count === 1 ? '' : 's'}`
	return (
		<tr class="gap" id={`at-${id}`}>
			<td colspan={columns}>
				<button type="button" class="fold" aria-expanded="false" aria-controls={id} data-collapses data-fetch={href}>
					{label}
				</button>
				<a class="fold" href={href}>
					{label}
				</a>
				<div id={id} class="fold-lines" hidden data-folded="" />
			</td>
		</tr>
	)
}

/** A folded run's lines, opened: rows of the table the fold is in (`view`), in a table of their own. */
export function FoldLines({ lines, view }: { lines: DiffLine[]; view: CompareView['view'] }) {
	return view === 'unified' ? (
		<table class="diff unified">
			<UnifiedColumns />
			<tbody>
				{lines.map((line) => (
					<UnifiedRow line={line} />
				))}
			</tbody>
		</table>
	) : (
		<table class="diff split">
			<SplitColumns />
			<tbody>
				{lines.map((line) => (
					<SplitRow left={line} right={line} />
				))}
			</tbody>
		</table>
	)
}

/** A folded run on a page of its own (the fold's link, without a script): what it is, its lines, the way back. */
export function FoldBody({ compare, index, lines }: { compare: CompareView; index: number; lines: DiffLine[] }) {
	const first = lines[0]
	const last = lines[lines.length - 1]
	const range = (a: number | undefined, b: number | undefined) =>
		a === b ? `line ${a}` : `lines ${a?.toLocaleString('en')} to ${b?.toLocaleString('en')}`
	return (
		<>
			<p>
				{range(first?.from, last?.from)} of version {compare.from.version} and {range(first?.to, last?.to)} of version{' '}
				{compare.to.version}: the same in both{compare.whitespace === 'ignore' ? ', ignoring whitespace' : ''}.
			</p>
			<FoldLines lines={lines} view={compare.view} />
			<p>
				<a href={`${compareHref(compare)}#at-${foldId(index, compare.view, first?.from ?? 0)}`}>
					Back to the comparison
				</a>
			</p>
		</>
	)
}

/** Which comparison a page shows: the config, the two versions, the view and whether whitespace counts. */
export interface CompareView {
	configId: string
	from: { id: string; version: number }
	to: { id: string; version: number }
	view: 'unified' | 'split'
	whitespace: Whitespace
}

/** A comparison's address: the two versions, the view and whether whitespace counts. */
export const compareHref = (compare: CompareView) =>
	`/configs/${compare.configId}/compare?from=${compare.from.id}&to=${compare.to.id}${compare.view === 'split' ? '&view=split' : ''}${compare.whitespace === 'ignore' ? '&ws=ignore' : ''}`

/** Where a version's data is downloaded (docs/web.md): the same rules as viewing it. */
export const downloadHref = (configId: string, versionId: string) =>
	`/configs/${configId}/versions/${versionId}/download`

/** Past the comparison's limits: say so, and offer both versions as files. */
function TooLarge({ compare }: { compare: CompareView }) {
	return (
		<>
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
		</>
	)
}

const STATUS_TEXT = { added: 'added', removed: 'removed', changed: 'changed', unchanged: 'unchanged' } as const

/**
 * What the page's `#diff` holds: the diff, or (`files` undefined) that it is too large to compare here;
 * swapped in place by htmx when the view is toggled.
 */
export function DiffContent({ compare, files }: { compare: CompareView; files: FileDiff[] | undefined }) {
	if (files === undefined) return <TooLarge compare={compare} />
	const other = compare.view === 'unified' ? 'split' : 'unified'
	const href = (view: CompareView['view']) => compareHref({ ...compare, view })
	const changed = files.filter((file) => file.status !== 'unchanged')
	return (
		<>
			<p class="diff-toolbar">
				<span>
					{changed.length === 0
						? 'No differences.'
						: `${changed.length} file${changed.length === 1 ? '' : 's'} changed.`}{' '}
					{/* Below 640 px the page always shows one column, so side by side is neither said nor offered there. */}
					{compare.view === 'unified' ? (
						'Showing one column'
					) : (
						<>
							<span class="wide-only">Showing side by side</span>
							<span class="narrow-only">Showing one column</span>
						</>
					)}
					{compare.whitespace === 'ignore' ? ', ignoring whitespace' : ''}.
				</span>{' '}
				<a href={href(other)} hx-get={href(other)} hx-target="#diff" hx-swap="outerHTML" class="wide-only">
					{other === 'split' ? 'Show side by side' : 'Show in one column'}
				</a>
			</p>
			{files.map((file, index) => (
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
						<UnifiedFile file={file} index={index} compare={compare} />
					) : (
						<>
							<SplitFile file={file} index={index} compare={compare} />
							<UnifiedFile file={file} index={index} compare={compare} extra=" narrow-only" />
						</>
					)}
				</section>
			))}
		</>
	)
}
