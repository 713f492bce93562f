// Over 500 lines: the Configs area's list, a config's page, its files and MCP servers, with their handlers; the
// history and comparisons are configs-history.tsx.
import { LOCAL_KEYS_FILE, localKeysOf, onlyFiles } from '../../../shared/config-files'
import { maskArgs, maskText } from '../../../shared/mask'
import { type McpServer, serversInFile, tableForFile } from '../../../shared/mcp-tables'
import { AppError } from '../../lib/errors'
import type { VersionAuthor } from '../../modules/audit/service'
import { blocksOf } from '../diff'
import { attempt, noticeOf, page, type PageContext, type WebDeps } from '../kit'
import {
	Alert,
	CopyButton,
	Expands,
	InstallClientLink,
	Layout,
	LiveNotice,
	Notice,
	ScrollableText,
	Time,
	type ViewContext
} from '../layout'
import { type ListQuery, listQueryOf, NoMatch, Pager, pagesOf, SearchForm, shownRows, storePageOf } from '../lists'

// The Configs page and a config's page with its history (docs/web.md); comparing and rolling back are in configs-history.tsx.

export interface ConfigRowView {
	id: string
	name: string
	tool: string
	version: number
	updatedAt: string
	team: { name: string; slug: string } | null
}

/** The configs table, also used on a team's page (without the team column). The tool is a badge by the name: several configs share a name. */
export function ConfigsTable({
	ctx,
	configs,
	showTeam = true
}: {
	ctx: ViewContext
	configs: ConfigRowView[]
	showTeam?: boolean
}) {
	return (
		<table class="stack-on-phone compact">
			<thead>
				<tr>
					<th scope="col">Name and tool</th>
					{showTeam ? <th scope="col">Team</th> : null}
					<th scope="col">Version</th>
					<th scope="col">Updated</th>
				</tr>
			</thead>
			<tbody>
				{configs.map((config) => (
					<tr>
						<th scope="row" data-label="Config">
							<a href={`/configs/${config.id}`}>{config.name}</a> <span class="badge tool">{config.tool}</span>
						</th>
						{showTeam ? (
							<td data-label="Team">
								{config.team ? (
									<a href={`/teams/${config.team.slug}`}>{config.team.name}</a>
								) : (
									<span class="muted">personal</span>
								)}
							</td>
						) : null}
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

export function ConfigsPage({
	ctx,
	configs,
	query,
	more,
	liveFrom
}: {
	ctx: ViewContext
	configs: ConfigRowView[]
	query: ListQuery
	more: boolean
	liveFrom: string
}) {
	const pages = pagesOf('/configs', query, more)
	const nothingAtAll = configs.length === 0 && query.search === '' && query.page === 1
	return (
		<Layout ctx={ctx} title={query.search === '' ? 'Configs' : `Configs matching “${query.search}”`}>
			<h1>Configs</h1>
			<p class="lead">Your configs and your teams' configs, as the cfgsync client last pushed them.</p>
			<LiveNotice watch="configs" from={liveFrom} />
			{nothingAtAll ? (
				<p class="empty">
					Nothing synced yet. <InstallClientLink /> on a machine, then run <code>cfgsync push</code> there to store its
					first config.
				</p>
			) : (
				<>
					<SearchForm action="/configs" search={query.search} what="Part of a config's name or tool." />
					{configs.length === 0 ? (
						<NoMatch search={query.search} path="/configs" />
					) : (
						<ConfigsTable ctx={ctx} configs={configs} />
					)}
					<Pager {...pages} label="Pages of configs" />
				</>
			)}
		</Layout>
	)
}

/** Files longer than this show their first lines and a "Show all" control (docs/web.md). */
export const COLLAPSED_LINES = 30

/** Where a text's first `count` lines end (after their newline); the text's length when it has no more. */
function endOfLines(text: string, count: number): number {
	let at = -1
	for (let line = 0; line < count; line++) {
		at = text.indexOf('\n', at + 1)
		if (at === -1) return text.length
	}
	return at + 1
}

/**
 * One file as text. Past COLLAPSED_LINES its first lines show, then a "Show all" button (aria-expanded,
 * aria-controls) and the rest, folded (layout.tsx, Expands); "Copy" copies the whole file (shown by app.js;
 * the text stays selectable). Each part is a focusable region, as its long lines scroll sideways: the
 * first named by the file's heading, the rest by its lines.
 */
function FileText({ id, label, labelledBy, text }: { id: string; label: string; labelledBy?: string; text: string }) {
	const cut = endOfLines(text, COLLAPSED_LINES)
	const rest = text.slice(cut)
	const total = rest === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
	return (
		<>
			<CopyButton target={id} label={label} />
			<div id={id} class="file-text">
				<ScrollableText labelledBy={labelledBy} label={label}>
					<code>{text.slice(0, cut)}</code>
				</ScrollableText>
				{rest === '' ? null : (
					<>
						<Expands controls={`${id}-rest`} class="link show-all">
							Show all<span class="visually-hidden"> of {label}</span> ({total} lines)
						</Expands>
						<ScrollableText id={`${id}-rest`} label={`${label}, lines ${COLLAPSED_LINES + 1} to ${total}`} hidden>
							<code>{rest}</code>
						</ScrollableText>
					</>
				)}
			</div>
		</>
	)
}

/**
 * Config data, always as text: one titled block per file of a `{"files": …}` config, collapsed past
 * COLLAPSED_LINES, each with "Copy". `idPrefix` keeps ids unique on a page.
 */
export function DataBlocks({
	data,
	level = 3,
	idPrefix = 'file'
}: {
	data: unknown
	level?: 2 | 3
	idPrefix?: string
}) {
	const Heading = level === 2 ? 'h2' : 'h3'
	return (
		<div class="blocks">
			{blocksOf(data).map((block, index) => (
				<section class="block">
					{block.path !== null ? (
						<Heading class="file-path" id={`${idPrefix}-${index}`}>
							<code>{block.path}</code>
						</Heading>
					) : null}
					<FileText
						id={`${idPrefix}-text-${index}`}
						label={block.path ?? 'Config data'}
						labelledBy={block.path !== null ? `${idPrefix}-${index}` : undefined}
						text={block.text}
					/>
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
	/** Who pushed it, from the audit log; undefined when the log no longer has it (past its retention). */
	author?: VersionAuthor
}

export interface ConfigPageData {
	/** The event feed's position before this data was read (docs/web.md "Live changes"). */
	liveFrom: string
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
	/** Why some rows do not say who pushed them. */
	authorsNote?: string
	canRollBack: boolean
}

/** "alice from laptop", and for a rollback what it restored; or that the activity log no longer has it. */
function Author({ author }: { author?: VersionAuthor }) {
	if (!author) return <span class="muted">no longer in the activity log</span>
	return (
		<>
			{author.username ?? 'a removed user'}
			{author.device ? (
				<>
					{' '}
					<span class="muted">from</span> {author.device}
				</>
			) : null}
			{author.restored !== null ? <span class="muted"> (rolled back to version {author.restored})</span> : null}
		</>
	)
}

/** The history table and the form to compare two versions: what people come to this page for, so it comes first. */
function History({ ctx, config }: { ctx: ViewContext; config: ConfigPageData }) {
	if (config.versions === undefined) return <p class="empty">{config.historyNote}</p>
	return (
		<>
			<table class="stack-on-phone history">
				<thead>
					<tr>
						<th scope="col">Version</th>
						<th scope="col">Time</th>
						<th scope="col">Pushed by</th>
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
								{version.isCurrent ? (
									<>
										{' '}
										<span class="badge current">current</span>
									</>
								) : null}
							</th>
							<td data-label="Time">
								<Time iso={version.createdAt} now={ctx.now} />
							</td>
							<td data-label="Pushed by">
								<Author author={version.author} />
							</td>
							<td class="actions">
								{version.isCurrent ? null : (
									<>
										<a
											class="button"
											href={`/configs/${config.id}/compare?from=${version.id}&to=${config.currentVersionId}`}
										>
											Compare<span class="visually-hidden"> version {version.version}</span>
										</a>
										{config.canRollBack ? (
											<form method="get" action={`/configs/${config.id}/rollback`}>
												<input type="hidden" name="version" value={version.id} />
												<button type="submit" class="secondary">
													Roll back<span class="visually-hidden"> to version {version.version}</span>
												</button>
											</form>
										) : null}
									</>
								)}
							</td>
						</tr>
					))}
				</tbody>
			</table>
			{config.authorsNote ? <p class="muted">{config.authorsNote}</p> : null}
			{config.olderThan !== undefined ? (
				<p>
					<a href={`/configs/${config.id}?before=${config.olderThan}#history`}>Older versions</a>
				</p>
			) : null}
			{config.versions.length > 1 ? (
				<form method="get" action={`/configs/${config.id}/compare`} class="compare-form" aria-labelledby="compare-two">
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
					<label class="check">
						<input type="checkbox" name="ws" value="ignore" />
						Ignore whitespace
					</label>
					<button type="submit">Compare</button>
				</form>
			) : null}
		</>
	)
}

export function ConfigPage({
	ctx,
	config,
	notice,
	error
}: {
	ctx: ViewContext
	config: ConfigPageData
	notice?: string
	error?: string
}) {
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
			<LiveNotice watch={`config:${config.id}`} from={config.liveFrom} />
			<Alert message={error} />
			<p class="config-summary">
				Version {config.version}, updated <Time iso={config.updatedAt} now={ctx.now} inline />
				{config.team ? ', team config' : ', personal config'}. <a href="#current-data">Current data</a>
			</p>
			<h2 id="history">History</h2>
			<History ctx={ctx} config={config} />
			<h2 id="current-data">Current data</h2>
			<LocalKeys data={config.data} />
			<McpServers data={config.data} />
			<DataBlocks data={config.data} />
		</Layout>
	)
}

/**
 * The keys this config keeps local on every machine that syncs it (`cfgsync local --everywhere`,
 * docs/sync-model.md "Settings that stay on one machine"), read from the version's own list.
 */
function LocalKeys({ data }: { data: unknown }) {
	const files = onlyFiles(data)
	const keys = localKeysOf(files?.[LOCAL_KEYS_FILE])
	if (keys.length === 0) return null
	return (
		<section class="local-keys" aria-labelledby="local-keys">
			<h3 id="local-keys">
				<span class="badge">local</span> Local on every machine
			</h3>
			<p class="muted">
				Each machine that syncs this config keeps its own value of these: never sent, never written over by a pull (
				<code>cfgsync local --everywhere</code>).
			</p>
			<ul>
				{keys.map((key) => (
					<li>
						<code>{key.file}</code>
						{key.path ? (
							<>
								: <code>{key.path.join('.')}</code>
							</>
						) : (
							' (the whole file)'
						)}
					</li>
				))}
			</ul>
		</section>
	)
}

/** How many MCP servers the page lists: a file holding more (pushed by a script, say) shows its first ones. */
const MAX_MCP_SERVERS = 200

const TRANSPORT_NAMES: Record<McpServer['transport'], string> = {
	stdio: 'stdio',
	http: 'HTTP',
	sse: 'SSE',
	unknown: 'not readable'
}

/** What a server runs or where it connects, with anything that looks like a credential masked. */
function runsText(server: McpServer): string {
	if (server.transport === 'stdio') return [maskText(server.command ?? ''), ...maskArgs(server.args ?? [])].join(' ')
	return maskText(server.url ?? '')
}

/**
 * The MCP servers the config's files hold (docs/client.md "MCP servers in every tool"), read with each tool's table
 * (src/shared/mcp-tables.ts), read only: name, transport, command or url. Env and header values
 * never show, only their names; a url's password, key-like query values and token-like arguments
 * are masked (src/shared/mask.ts). `cfgsync mcp` on a machine changes them.
 */
function McpServers({ data }: { data: unknown }) {
	const files = onlyFiles(data)
	if (files === undefined) return null
	const rows = Object.keys(files)
		.sort()
		.flatMap((file) => {
			const table = tableForFile(file)
			return table ? serversInFile(table, files[file] as string).map(([name, server]) => ({ file, name, server })) : []
		})
	if (rows.length === 0) return null
	const shown = rows.slice(0, MAX_MCP_SERVERS)
	return (
		<section class="mcp-servers" aria-labelledby="mcp-servers">
			<h3 id="mcp-servers">MCP servers</h3>
			<p class="muted">
				Read only; <code>cfgsync mcp</code> changes them on a machine. Values of env and headers are not shown, and
				anything that looks like a credential is masked.
			</p>
			<table class="stack-on-phone">
				<thead>
					<tr>
						<th scope="col">Server</th>
						<th scope="col">Transport</th>
						<th scope="col">Command or url</th>
						<th scope="col">Env or headers</th>
						<th scope="col">File</th>
					</tr>
				</thead>
				<tbody>
					{shown.map(({ file, name, server }) => {
						const names = Object.keys((server.transport === 'stdio' ? server.env : server.headers) ?? {})
						return (
							<tr>
								<th scope="row" data-label="Server">
									{name}
								</th>
								<td data-label="Transport">{TRANSPORT_NAMES[server.transport]}</td>
								<td data-label="Command or url">
									{server.transport === 'unknown' ? '' : <code>{runsText(server)}</code>}
								</td>
								<td data-label="Env or headers">{names.length > 0 ? names.join(', ') : 'none'}</td>
								<td data-label="File">
									<code>{file}</code>
								</td>
							</tr>
						)
					})}
				</tbody>
			</table>
			{rows.length > shown.length ? (
				<p class="muted">
					Showing the first {shown.length} of {rows.length} servers.
				</p>
			) : null}
		</section>
	)
}

/** A version's data, as the JSON it was pushed as. */
export const parseData = (bytes: Uint8Array): unknown => JSON.parse(Buffer.from(bytes).toString('utf8'))

export const configsPages = ({ configs, policy, teams, audit, events }: WebDeps) => {
	/** A config's page: its current data and, where the plan allows, a page of its history. */
	async function configPageData(
		caller: PageContext['web'],
		id: string,
		before: number | undefined
	): Promise<ConfigPageData> {
		const liveFrom = await events.cursor()
		const found = await configs.get(caller, id, undefined)
		if (found.notModified) throw new AppError('internal', 'unexpected 304')
		const { fields } = found
		const team =
			fields.teamId === null
				? undefined
				: (await teams.list(caller)).find((candidate) => candidate.id === fields.teamId)
		const historyAllowed = await policy.can(caller, fields, 'history')
		let versions: ConfigPageData['versions']
		let olderThan: number | undefined
		let authorsNote: string | undefined
		const limit = 50
		if (historyAllowed) {
			versions = []
			const page = await configs.versions(caller, id, { limit, before })
			for await (const version of page.versions) versions.push(version.fields)
			olderThan = page.next
			const authors = await audit.versionAuthors(caller, fields, versions)
			for (const version of versions) version.author = authors.get(version.version)
			if (versions.some((version) => !version.author))
				authorsNote =
					'The activity log keeps events for a limited time (365 days, unless the server sets CFGSYNC_AUDIT_RETENTION_DAYS otherwise): it no longer says who pushed the versions marked so.'
		}
		return {
			liveFrom,
			id: fields.id,
			name: fields.name,
			tool: fields.tool,
			version: fields.version,
			currentVersionId: fields.currentVersionId,
			updatedAt: fields.updatedAt,
			team: team ? { name: team.name, slug: team.slug } : null,
			data: parseData(found.data),
			versions,
			olderThan,
			authorsNote,
			historyNote: historyAllowed
				? undefined
				: 'Version history, comparing versions and rollback need the Pro or Team plan.',
			canRollBack: await policy.can(caller, fields, 'rollback')
		}
	}

	return {
		list: ({ request, web, view }: PageContext) =>
			attempt(request, view, async () => {
				const query = listQueryOf(request.url)
				const liveFrom = await events.cursor()
				const { rows, more } = shownRows(await configs.listVisible(web, storePageOf(query)))
				return page(<ConfigsPage ctx={view} configs={rows} query={query} more={more} liveFrom={liveFrom} />)
			}),

		show: ({ request, web, view, params }: PageContext & { params: { id: string } }) =>
			attempt(request, view, async () => {
				const before = Number(new URL(request.url).searchParams.get('before'))
				const data = await configPageData(web, params.id, Number.isInteger(before) && before > 0 ? before : undefined)
				return page(<ConfigPage ctx={view} config={data} notice={noticeOf(request)} />)
			})
	}
}
