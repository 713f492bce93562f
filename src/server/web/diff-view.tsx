import type { ComponentChildren } from 'preact'
import { DIFF_LIMITS, sideBySide, type DiffLine, type FileDiff, type Gap, type Whitespace } from './diff'
import { Expands } from './layout'

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

function UnifiedFile({ file, index, extra = '' }: { file: FileDiff; index: number; extra?: string }) {
	return (
		<table class={`diff unified${extra}`}>
			<UnifiedColumns />
			<tbody>
				{file.lines.map((line) =>
					line.kind === 'gap' ? (
						<Fold gap={line} columns={4} id={foldId(index, 'unified', line)}>
							{(id) => (
								<table id={id} class="diff unified" hidden data-folded="">
									<UnifiedColumns />
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
			<SplitColumns />
			<tbody>
				{sideBySide(file.lines).map((row) =>
					row.gap !== undefined ? (
						<Fold gap={row.gap} columns={6} id={foldId(index, 'split', row.gap)}>
							{(id) => (
								<table id={id} class="diff split" hidden data-folded="">
									<SplitColumns />
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
						<UnifiedFile file={file} index={index} />
					) : (
						<>
							<SplitFile file={file} index={index} />
							<UnifiedFile file={file} index={index} extra=" narrow-only" />
						</>
					)}
				</section>
			))}
		</>
	)
}
