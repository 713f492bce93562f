import { blocksOf, sideBySide, type DiffLine, type FileDiff } from '../diff'
import { Alert, Layout, Notice, Time, type ViewContext } from './layout'

export interface ConfigRowView {
	id: string
	name: string
	tool: string
	version: number
	updatedAt: string
	team: { name: string; slug: string } | null
}

/** The configs table, also used on a team's page (without the team column). */
export function ConfigsTable({ ctx, configs, showTeam = true }: { ctx: ViewContext; configs: ConfigRowView[]; showTeam?: boolean }) {
	return (
		<table class="stack-on-phone">
			<thead>
				<tr>
					<th scope="col">Name</th>
					<th scope="col">Tool</th>
					{showTeam ? <th scope="col">Team</th> : null}
					<th scope="col">Version</th>
					<th scope="col">Updated</th>
				</tr>
			</thead>
			<tbody>
				{configs.map((config) => (
					<tr>
						<th scope="row" data-label="Name">
							<a href={`/configs/${config.id}`}>{config.name}</a>
						</th>
						<td data-label="Tool">{config.tool}</td>
						{showTeam ? <td data-label="Team">{config.team ? <a href={`/teams/${config.team.slug}`}>{config.team.name}</a> : <span class="muted">personal</span>}</td> : null}
						<td data-label="Version" class="num">
							{config.version}
						</td>
						<td data-label="Updated">
							<Time iso={config.updatedAt} now={ctx.now} />
						</td>
					</tr>
				))}
			</tbody>
		</table>
	)
}

export function ConfigsPage({ ctx, configs }: { ctx: ViewContext; configs: ConfigRowView[] }) {
	return (
		<Layout ctx={ctx} title="Configs">
			<h1>Configs</h1>
			<p class="lead">Your configs and your teams' configs, as the cfgsync client last pushed them.</p>
			{configs.length === 0 ? (
				<p class="empty">
					Nothing synced yet. Run <code>cfgsync push</code> on a machine to store its first config.
				</p>
			) : (
				<ConfigsTable ctx={ctx} configs={configs} />
			)}
		</Layout>
	)
}

/** Config data, always as text: one titled block per file of a `{"files": …}` config. */
export function DataBlocks({ data, level = 3 }: { data: unknown; level?: 2 | 3 }) {
	const Heading = level === 2 ? 'h2' : 'h3'
	return (
		<div class="blocks">
			{blocksOf(data).map((block) => (
				<section class="block">
					{block.path !== null ? (
						<Heading class="file-path">
							<code>{block.path}</code>
						</Heading>
					) : null}
					<pre>
						<code>{block.text}</code>
					</pre>
				</section>
			))}
		</div>
	)
}

export interface VersionRowView {
	id: string
	version: number
	createdAt: string
	isCurrent: boolean
}

export interface ConfigPageData {
	id: string
	name: string
	tool: string
	version: number
	currentVersionId: string
	updatedAt: string
	team: { name: string; slug: string } | null
	data: unknown
	/** undefined when the plan has no history (the reason is in historyNote). */
	versions?: VersionRowView[]
	olderThan?: number
	historyNote?: string
	canRollBack: boolean
}

export function ConfigPage({ ctx, config, notice, error }: { ctx: ViewContext; config: ConfigPageData; notice?: string; error?: string }) {
	return (
		<Layout ctx={ctx} title={`${config.name} (${config.tool})`}>
			<p class="crumbs">
				<a href="/configs">Configs</a>
				{config.team ? (
					<>
						{' / '}
						<a href={`/teams/${config.team.slug}`}>{config.team.name}</a>
					</>
				) : null}
			</p>
			<h1>
				{config.name} <span class="muted">{config.tool}</span>
			</h1>
			<Notice message={notice} />
			<Alert message={error} />
			<p>
				Version {config.version}, updated <Time iso={config.updatedAt} now={ctx.now} />
				{config.team ? ', team config' : ', personal config'}.
			</p>
			<h2>Current data</h2>
			<DataBlocks data={config.data} />
			<h2 id="history">History</h2>
			{config.versions === undefined ? (
				<p class="empty">{config.historyNote}</p>
			) : (
				<>
					<table class="stack-on-phone">
						<thead>
							<tr>
								<th scope="col">Version</th>
								<th scope="col">Time</th>
								<th scope="col">Current</th>
								<th scope="col">
									<span class="visually-hidden">Actions</span>
								</th>
							</tr>
						</thead>
						<tbody>
							{config.versions.map((version) => (
								<tr>
									<th scope="row" data-label="Version" class="num">
										{version.version}
									</th>
									<td data-label="Time">
										<Time iso={version.createdAt} now={ctx.now} />
									</td>
									<td data-label="Current">{version.isCurrent ? <strong>current</strong> : <span class="muted">no</span>}</td>
									<td class="actions">
										{version.isCurrent ? null : (
											<>
												<a class="button secondary" href={`/configs/${config.id}/compare?from=${version.id}&to=${config.currentVersionId}`}>
													Compare
												</a>
												{config.canRollBack ? (
													<form method="get" action={`/configs/${config.id}/rollback`}>
														<input type="hidden" name="version" value={version.id} />
														<button type="submit">Roll back</button>
													</form>
												) : null}
											</>
										)}
									</td>
								</tr>
							))}
						</tbody>
					</table>
					{config.olderThan !== undefined ? (
						<p>
							<a href={`/configs/${config.id}?before=${config.olderThan}#history`}>Older versions</a>
						</p>
					) : null}
					{config.versions.length > 1 ? (
						<form method="get" action={`/configs/${config.id}/compare`} class="compare-form">
							<h3 id="compare-two">Compare two versions</h3>
							<label for="from">From version</label>
							<select id="from" name="from">
								{config.versions.map((version, index) => (
									<option value={version.id} selected={index === 1}>
										{version.version}
									</option>
								))}
							</select>
							<label for="to">To version</label>
							<select id="to" name="to">
								{config.versions.map((version, index) => (
									<option value={version.id} selected={index === 0}>
										{version.version}
									</option>
								))}
							</select>
							<button type="submit">Compare</button>
						</form>
					) : null}
				</>
			)}
		</Layout>
	)
}

const Sign = ({ kind }: { kind: DiffLine['kind'] }) => (
	<span class="sign" aria-hidden="true">
		{kind === 'added' ? '+' : kind === 'removed' ? '−' : ' '}
	</span>
)

/** A line's text inside <ins>/<del>, with a word for screen readers: marked by more than colour. */
function LineText({ line }: { line: DiffLine }) {
	if (line.kind === 'added')
		return (
			<ins>
				<span class="visually-hidden">added: </span>
				{line.text}
			</ins>
		)
	if (line.kind === 'removed')
		return (
			<del>
				<span class="visually-hidden">removed: </span>
				{line.text}
			</del>
		)
	return <span>{line.text}</span>
}

function UnifiedFile({ file }: { file: FileDiff }) {
	return (
		<table class="diff unified">
			<tbody>
				{file.lines.map((line) =>
					line.kind === 'gap' ? (
						<tr class="gap">
							<td colspan={4}>
								⋯ {line.count} unchanged line{line.count === 1 ? '' : 's'}
							</td>
						</tr>
					) : (
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
				)}
			</tbody>
		</table>
	)
}

function SplitFile({ file }: { file: FileDiff }) {
	return (
		<table class="diff split">
			<tbody>
				{sideBySide(file.lines).map((row) =>
					row.gap !== undefined ? (
						<tr class="gap">
							<td colspan={6}>
								⋯ {row.gap} unchanged line{row.gap === 1 ? '' : 's'}
							</td>
						</tr>
					) : (
						<tr>
							<td class="ln">{row.left?.from ?? ''}</td>
							<td class={`mark ${row.left?.kind ?? 'empty'}`}>{row.left ? <Sign kind={row.left.kind} /> : null}</td>
							<td class={`code ${row.left?.kind ?? 'empty'}`}>{row.left ? <LineText line={row.left} /> : null}</td>
							<td class="ln">{row.right?.to ?? ''}</td>
							<td class={`mark ${row.right?.kind ?? 'empty'}`}>{row.right ? <Sign kind={row.right.kind} /> : null}</td>
							<td class={`code ${row.right?.kind ?? 'empty'}`}>{row.right ? <LineText line={row.right} /> : null}</td>
						</tr>
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
	files: FileDiff[]
	view: 'unified' | 'split'
}

const STATUS_TEXT = { added: 'added', removed: 'removed', changed: 'changed', unchanged: 'unchanged' } as const

/** The diff itself: swapped in place by htmx when the view is toggled. */
export function DiffView({ compare }: { compare: CompareData }) {
	const other = compare.view === 'unified' ? 'split' : 'unified'
	const href = (view: string) => `/configs/${compare.configId}/compare?from=${compare.from.id}&to=${compare.to.id}&view=${view}`
	const changed = compare.files.filter((file) => file.status !== 'unchanged')
	return (
		<div id="diff">
			<p class="diff-toolbar">
				<span>
					{changed.length === 0 ? 'No differences.' : `${changed.length} file${changed.length === 1 ? '' : 's'} changed.`} Showing{' '}
					{compare.view === 'unified' ? 'one column' : 'side by side'}.
				</span>{' '}
				<a href={href(other)} hx-get={href(other)} hx-target="#diff" hx-swap="outerHTML">
					{other === 'split' ? 'Show side by side' : 'Show in one column'}
				</a>
			</p>
			{compare.files.map((file) => (
				<section class="block">
					<h2 class="file-path">
						{file.path !== null ? <code>{file.path}</code> : 'Data'} <span class={`badge ${file.status}`}>{STATUS_TEXT[file.status]}</span>
						{file.status !== 'unchanged' ? <span class="muted"> +{file.added} −{file.removed}</span> : null}
					</h2>
					{file.status === 'unchanged' ? null : compare.view === 'unified' ? <UnifiedFile file={file} /> : <SplitFile file={file} />}
				</section>
			))}
		</div>
	)
}

export function ComparePage({ ctx, compare }: { ctx: ViewContext; compare: CompareData }) {
	return (
		<Layout ctx={ctx} title={`Compare ${compare.name}`}>
			<p class="crumbs">
				<a href="/configs">Configs</a> / <a href={`/configs/${compare.configId}`}>{compare.name}</a>
			</p>
			<h1>
				Version {compare.from.version} → version {compare.to.version}
			</h1>
			<p class="legend">
				<span class="sign">+</span> added lines, <span class="sign">−</span> removed lines.
			</p>
			<DiffView compare={compare} />
		</Layout>
	)
}
