// Over 500 lines: the frame every page shares and the small pieces every area draws with (fields, notices, Copy,
// saved choices, times, list headings), kept together so that each looks and reads the same everywhere.
import type { ComponentChildren } from 'preact'
import { MCP_TABLES } from '../../shared/mcp-tables'
import { CSRF_FIELD, PAGE_FIELD } from './session'

/** Who is looking, and what every page needs besides its own data. */
export interface ViewContext {
	/** Undefined when signed out. */
	user?: { userId: string; username: string; isAdmin: boolean; csrfToken: string }
	/** Now, in ms (relative times are computed on the server). */
	now: number
	/** The paths of the embedded assets (with their content hash). */
	assets: { css: string; script: string; htmx: string }
	/** The page's path, for the current navigation link. */
	path: string
}

/**
 * htmx under the strict CSP (docs/api.md): no eval, no <style> it injects itself, no style attribute it copies, no
 * script tags from swapped content, no page snapshots in localStorage
 * (pages hold config data), requests to this origin only. Error responses
 * (4xx) are swapped too: the server retargets them to the page's alert region.
 */
export const HTMX_CONFIG = JSON.stringify({
	allowEval: false,
	allowScriptTags: false,
	includeIndicatorStyles: false,
	historyEnabled: false,
	historyCacheSize: 0,
	selfRequestsOnly: true,
	globalViewTransitions: false,
	// Not 'style' (htmx's default has it): a swapped element with an id takes over its old twin's settle attributes by
	// setAttribute, and a style attribute (even an empty one a browser left on a field) breaks the CSP: none applies.
	attributesToSettle: ['class', 'width', 'height'],
	responseHandling: [
		{ code: '204', swap: false },
		{ code: '[23]..', swap: true },
		{ code: '4..', swap: true, error: true },
		{ code: '...', swap: false, error: true }
	]
})

const NAV = [
	{ href: '/configs', label: 'Configs' },
	{ href: '/devices', label: 'Devices' },
	{ href: '/teams', label: 'Teams' },
	{ href: '/activity', label: 'Activity' },
	{ href: '/account', label: 'Account' }
]

/**
 * The hidden fields every form that changes something carries: the session's CSRF token, and the page the form
 * is on, where a session that ended before the form was sent brings the person back after signing in (forms.tsx).
 */
export const Csrf = ({ ctx }: { ctx: ViewContext }) => (
	<>
		<input type="hidden" name={CSRF_FIELD} value={ctx.user?.csrfToken ?? ''} />
		<input type="hidden" name={PAGE_FIELD} value={ctx.path} />
	</>
)

/**
 * A choice (a role, a plan) saved only by its button (docs/web.md): arrow keys on a closed select
 * fire `change`, so nothing listens to it. With htmx the answer replaces the list `target`.
 */
export const SavedChoice = (props: {
	ctx: ViewContext
	action: string
	target: string
	id: string
	label: string
	name: string
	choices: readonly string[]
	value: string
	focus?: boolean
}) => (
	<form
		method="post"
		action={props.action}
		hx-post={props.action}
		hx-target={props.target}
		hx-swap="outerHTML"
		class="role-form"
	>
		<Csrf ctx={props.ctx} />
		<label for={props.id} class="visually-hidden">
			{props.label}
		</label>
		<select id={props.id} name={props.name}>
			{props.choices.map((choice) => (
				<option value={choice} selected={props.value === choice}>
					{choice}
				</option>
			))}
		</select>
		<button type="submit" class="secondary small" autofocus={props.focus || undefined}>
			Save
		</button>
	</form>
)

/**
 * A sentence of ours or of a service, where a command is written between backticks ("run `cfgsync login`"):
 * each such part is shown as code, never with the backticks themselves (docs/web.md). Text stays text.
 */
export const Sentence = ({ text }: { text: string }) => (
	<>{text.split('`').map((part, index) => (index % 2 === 1 && part !== '' ? <code>{part}</code> : part))}</>
)

export const Alert = ({ message }: { message?: string }) =>
	message ? (
		<p class="alert" role="alert">
			<Sentence text={message} />
		</p>
	) : null

/**
 * A password field with its "Show password" toggle (aria-pressed). The toggle is hidden in the markup and shown by
 * app.js: without a script it could do nothing, and the field works as ever.
 */
export const PasswordField = ({
	id,
	name,
	label,
	toggle = 'Show password',
	autocomplete,
	autofocus,
	minlength,
	describedBy,
	invalid
}: {
	id: string
	name: string
	label: string
	toggle?: string
	autocomplete: 'current-password' | 'new-password'
	autofocus?: boolean
	minlength?: number
	describedBy?: string
	/** A failed form's marks for this field (forms.tsx fieldState): its value is never kept. */
	invalid?: { 'aria-invalid'?: 'true'; 'aria-describedby'?: string; autofocus?: boolean }
}) => (
	<>
		<label for={id}>{label}</label>
		<div class="password-field">
			<input
				id={id}
				name={name}
				type="password"
				autocomplete={autocomplete}
				required
				minlength={minlength}
				autofocus={autofocus || invalid?.autofocus || undefined}
				aria-describedby={invalid?.['aria-describedby'] ?? describedBy}
				aria-invalid={invalid?.['aria-invalid']}
			/>
			<button type="button" class="secondary small" data-reveals={id} aria-controls={id} aria-pressed="false" hidden>
				{toggle}
			</button>
		</div>
	</>
)

export const Notice = ({ message }: { message?: string }) =>
	message ? (
		<p class="notice" role="status">
			<Sentence text={message} />
		</p>
	) : null

/**
 * Where a page says that what it shows has changed since it was loaded (docs/web.md "Live changes"):
 * app.js listens to /events for the pages that carry it and writes the sentence and a "Reload" button
 * here. `watch` names what the page shows: `configs` (any of the person's configs), `config:<id>` or
 * `team:<id>` (that team's configs). Empty and present from the start, so screen readers announce it.
 */
export const LiveNotice = ({
	watch,
	from
}: {
	watch: `configs` | `config:${string}` | `team:${string}`
	/** The event feed's position read before the page's data (EventBroker.cursor). */
	from: string
}) => <div class="status live-notice" role="status" data-live={watch} data-live-from={from}></div>

export function Layout({ ctx, title, children }: { ctx: ViewContext; title: string; children: ComponentChildren }) {
	const user = ctx.user
	const current = (href: string) => ctx.path === href || ctx.path.startsWith(`${href}/`)
	return (
		<html lang="en" class="no-js">
			<head>
				<meta charset="utf-8" />
				<meta name="viewport" content="width=device-width, initial-scale=1" />
				<meta name="color-scheme" content="light dark" />
				<meta name="htmx-config" content={HTMX_CONFIG} />
				{/* No favicon request: the browser would otherwise ask for /favicon.ico and log its 404. */}
				<link rel="icon" href="data:," />
				<title>{`${title} · cfgsync`}</title>
				<link rel="stylesheet" href={ctx.assets.css} />
				<script src={ctx.assets.script} defer />
				{user ? <script src={ctx.assets.htmx} defer /> : null}
			</head>
			<body hx-headers={user ? JSON.stringify({ 'X-CSRF-Token': user.csrfToken }) : undefined}>
				<a class="skip" href="#main">
					Skip to content
				</a>
				<header class="top">
					<a class="brand" href={user ? '/configs' : '/'}>
						cfgsync
					</a>
					{user ? (
						<>
							<nav aria-label="Main">
								<ul>
									{NAV.map((item) => (
										<li>
											<a href={item.href} aria-current={current(item.href) ? 'page' : undefined}>
												{item.label}
											</a>
										</li>
									))}
									{user.isAdmin ? (
										<li>
											<a href="/admin" aria-current={current('/admin') ? 'page' : undefined}>
												Admin
											</a>
										</li>
									) : null}
								</ul>
							</nav>
							<form class="signout" method="post" action="/sign-out">
								<Csrf ctx={ctx} />
								<span class="who">{user.username}</span>
								<button type="submit" class="link">
									Sign out
								</button>
							</form>
						</>
					) : null}
				</header>
				<main id="main" tabindex={-1}>
					<div id="alerts" aria-live="polite"></div>
					{children}
				</main>
			</body>
		</html>
	)
}

const UNITS: [number, string][] = [
	[60, 'second'],
	[60, 'minute'],
	[24, 'hour'],
	[30, 'day'],
	[12, 'month'],
	[Number.POSITIVE_INFINITY, 'year']
]

/** "3 minutes ago" (or "in 6 days", for an expiry), computed from the server's clock. */
export function relativeTime(iso: string, now: number): string {
	const seconds = Math.round((now - Date.parse(iso)) / 1000)
	if (Math.abs(seconds) < 10) return 'just now'
	let amount = Math.abs(seconds)
	for (const [size, unit] of UNITS) {
		if (amount < size) {
			const span = `${amount} ${unit}${amount === 1 ? '' : 's'}`
			return seconds > 0 ? `${span} ago` : `in ${span}`
		}
		amount = Math.floor(amount / size)
	}
	return iso
}

/** `2026-11-22 10:04:05 UTC`: the exact time. */
export const exactTime = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`

/**
 * A relative time, with the exact time shown under it in smaller text (docs/web.md: read by everyone, with no
 * hover, keyboard or touch needed) and for machines (datetime). `inline` is for a time inside a sentence: the
 * exact time follows in brackets on the same line, so the sentence reads on.
 */
export const Time = ({
	iso,
	now,
	inline = false
}: {
	iso: string | null | undefined
	now: number
	inline?: boolean
}) =>
	iso ? (
		<span class={inline ? 'when inline' : 'when'}>
			<time datetime={iso}>{relativeTime(iso, now)}</time>{' '}
			<span class="exact">{inline ? `(${exactTime(iso)})` : exactTime(iso)}</span>
		</span>
	) : (
		<span class="muted">never</span>
	)

/**
 * Where an error page leads back to (its path's page): the page the refused action was asked from (a team's page for
 * its forms, a config's for its versions), or, when the thing itself was not found, the list it would be in.
 */
export function backLinkOf(path: string, status: number, signedIn: boolean): { href: string; label: string } {
	if (!signedIn) return { href: '/', label: 'Back to sign in' }
	const [area = '', item] = path.split('/').filter(Boolean)
	const lists: Record<string, { href: string; label: string }> = {
		configs: { href: '/configs', label: 'Back to Configs' },
		teams: { href: '/teams', label: 'Back to Teams' },
		invitations: { href: '/teams', label: 'Back to Teams' },
		devices: { href: '/devices', label: 'Back to Devices' },
		account: { href: '/account', label: 'Back to Account' },
		activity: { href: '/activity', label: 'Back to Activity' },
		admin: { href: '/admin', label: 'Back to Admin' }
	}
	const home = lists.configs!
	const list = lists[area] ?? home
	// No error page links to itself (docs/web.md): the Admin area's 403 leads home, not to the same 403.
	if (status === 403 && area === 'admin') return home
	if (status === 404 || item === undefined) return list
	if (area === 'teams') return { href: `/teams/${item}`, label: 'Back to the team' }
	if (area === 'configs') return { href: `/configs/${item}`, label: 'Back to the config' }
	return list
}

const ERROR_TITLES: Record<number, string> = {
	400: 'That did not work',
	403: 'Not allowed',
	404: 'Not found',
	409: 'That cannot be done',
	413: 'Too large',
	429: 'Too many attempts'
}

/** A refusal or a failure, as a page of its own, with a way back to where it was asked from. */
export function ErrorPage({
	ctx,
	status,
	message,
	back = backLinkOf(ctx.path, status, ctx.user !== undefined)
}: {
	ctx: ViewContext
	status: number
	message: string
	back?: { href: string; label: string }
}) {
	const title = ERROR_TITLES[status] ?? (status < 500 ? 'That did not work' : 'Something went wrong')
	return (
		<Layout ctx={ctx} title={title}>
			<h1>{title}</h1>
			<Alert message={message} />
			<p>
				<a href={back.href}>{back.label}</a>
			</p>
		</Layout>
	)
}

/**
 * Text that may scroll sideways (config data, a command to copy): focusable, so the keyboard can scroll it, and a
 * region named by `labelledBy` (an element's id) or `label` (axe: scrollable-region-focusable).
 */
export const ScrollableText = ({
	id,
	label,
	labelledBy,
	hidden,
	children
}: {
	id?: string
	hidden?: boolean
	label?: string
	labelledBy?: string
	children: ComponentChildren
}) => (
	// biome-ignore lint/a11y/useSemanticElements: the text must stay a <pre> (its whitespace is the content); the role names it as a scrollable region.
	<pre
		id={id}
		tabindex={0}
		role="region"
		aria-label={labelledBy ? undefined : label}
		aria-labelledby={labelledBy}
		hidden={hidden}
		data-folded={hidden ? '' : undefined}
	>
		{children}
	</pre>
)

/**
 * A button that shows and hides the element `controls` names (a long file's rest, a diff's folded lines). The
 * page comes folded (the part `hidden`, the button saying so) and app.js (`data-collapses`) opens and folds it.
 * Without a script the one stylesheet shows every folded part and hides these buttons (`html.no-js`, which
 * app.js removes), so nothing is out of reach.
 */
export const Expands = ({
	controls,
	class: className,
	children
}: {
	controls: string
	class: string
	children: ComponentChildren
}) => (
	<button type="button" class={className} aria-expanded="false" aria-controls={controls} data-collapses>
		{children}
	</button>
)

/**
 * "Copy" for the text inside the element `target` names (its `pre` parts), with the status beside it that
 * says whether it worked (app.js, data-copy). Hidden without a script, which it needs; the text stays
 * selectable. `label` finishes its accessible name ("Copy Install command").
 */
export const CopyButton = ({
	target,
	label,
	children
}: {
	target: string
	label: string
	/** Other tools of the same text, before "Copy" (a file's "Download"). */
	children?: ComponentChildren
}) => (
	<div class="file-tools">
		{children}
		<button type="button" class="secondary small" data-copy={target} hidden>
			Copy<span class="visually-hidden"> {label}</span>
		</button>
		<span id={`${target}-status`} class="copy-status" role="status"></span>
	</div>
)

/**
 * A secret shown once (a sign-up link, a one-time password: docs/web.md), with "Copy" beside it; the text stays
 * selectable (`user-select: all`) for a browser without a script or a clipboard. `label` names it ("Copy New
 * sign-up link").
 */
export const Secret = ({ id, label, value }: { id: string; label: string; value: string }) => (
	<>
		<CopyButton target={id} label={label} />
		<p id={id}>
			<code class="secret">{value}</code>
		</p>
	</>
)

/** A tool as people name it ("Claude Code"); a tool this server does not know, as stored. */
export const toolLabel = (tool: string): string =>
	(MCP_TABLES as Record<string, { label: string }>)[tool]?.label ?? tool

/**
 * A config as lists and titles name it (docs/web.md): its tool first, as most configs are named "default"
 * ("Claude Code · default").
 */
export const configTitle = (config: { tool: string; name: string }): string =>
	`${toolLabel(config.tool)} · ${config.name}`

/** The link to /download that every empty state of "nothing synced yet" and the Devices page carry (docs/web.md). */
export const InstallClientLink = () => <a href="/download">Install the client</a>

/**
 * A confirmation step that works without JavaScript (docs/web.md, safe to use): every destructive or
 * security-relevant action asks here first, naming its target; with JavaScript the page's own dialog (app.js)
 * asks instead. `children` adds fields (the team's slug typed to delete it).
 */
export function ConfirmPage({
	ctx,
	title,
	question,
	action,
	button,
	cancel,
	fields = {},
	error,
	children
}: {
	ctx: ViewContext
	title: string
	question: string
	action: string
	button: string
	cancel: string
	fields?: Record<string, string>
	error?: string
	children?: ComponentChildren
}) {
	return (
		<Layout ctx={ctx} title={title}>
			<h1>{title}</h1>
			<Alert message={error} />
			<p>{question}</p>
			<form method="post" action={action} class={children ? 'stack narrow' : 'inline-actions'}>
				<Csrf ctx={ctx} />
				<input type="hidden" name="confirmed" value="yes" />
				{Object.entries(fields).map(([name, value]) => (
					<input type="hidden" name={name} value={value} />
				))}
				{children}
				<div class="inline-actions">
					<button type="submit" class="danger">
						{button}
					</button>
					<a href={cancel} class="button secondary">
						Go back
					</a>
				</div>
			</form>
		</Layout>
	)
}

/** The lists that change in place (docs/web.md): each has a heading, a status region and the part htmx swaps. */
export type ListId = 'devices' | 'members' | 'invitations' | 'users'

/**
 * A list's heading: where focus goes when no row is left to take it (docs/web.md, safe to use).
 * In an htmx answer it replaces itself out of band with `autofocus`, which htmx focuses once swapped.
 */
export function ListHeading({
	list,
	title,
	level = 2,
	focus = false
}: {
	list: ListId
	title: string
	level?: 1 | 2
	focus?: boolean
}) {
	const Heading = level === 1 ? 'h1' : 'h2'
	return (
		<Heading
			id={`${list}-heading`}
			tabindex={-1}
			autofocus={focus || undefined}
			hx-swap-oob={focus ? 'true' : undefined}
		>
			{title}
		</Heading>
	)
}

/**
 * The region that says what an in-place change did (docs/web.md): present and empty from the start,
 * so screen readers announce the text swapped into it.
 */
export const ListStatus = ({ list }: { list: ListId }) => <p id={`${list}-status`} class="status" role="status"></p>
