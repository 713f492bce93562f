import type { KeyView } from '../../../shared/api/auth'
import { AppError } from '../../lib/errors'
import {
	attempt,
	inPlace,
	isHtmx,
	nextRowId,
	noticeOf,
	page,
	redirect,
	type ChangeContext,
	type PageContext,
	type WebDeps
} from '../kit'
import {
	ConfirmPage,
	InstallClientLink,
	Layout,
	ListHeading,
	ListStatus,
	Notice,
	Time,
	type ViewContext
} from '../layout'

// The Devices page (docs/web.md): one key per device, each revocable after a confirmation.

const LIST = { id: 'devices', title: 'Devices', level: 1 } as const

/** The devices table (or its empty state): what a revocation swaps in place; `focus` names the row whose button takes the focus. */
export function DevicesList({ ctx, keys, focus }: { ctx: ViewContext; keys: KeyView[]; focus?: string }) {
	return (
		<div id="devices-list">
			{keys.length === 0 ? (
				// The page's lead links "Install the client" already: one link of that name a page (docs/web.md).
				<p class="empty">
					No device has a key. Install the client on a machine (the link above), then run <code>cfgsync login</code>{' '}
					there to add one.
				</p>
			) : (
				<table class="stack-on-phone" aria-labelledby="devices-heading">
					<thead>
						<tr>
							<th scope="col">Device</th>
							<th scope="col">Access</th>
							<th scope="col">Created</th>
							<th scope="col">Last used</th>
							<th scope="col">
								<span class="visually-hidden">Actions</span>
							</th>
						</tr>
					</thead>
					<tbody>
						{keys.map((key) => (
							<tr id={`key-${key.id}`}>
								<th scope="row" data-label="Device">
									{key.device}
								</th>
								{/* docs/web.md: each key's scope; a read-only key (for CI) reads and streams but changes nothing. */}
								<td data-label="Access">{key.scope === 'read-only' ? 'Read-only' : 'Read and write'}</td>
								<td data-label="Created">
									<Time iso={key.createdAt} now={ctx.now} />
								</td>
								<td data-label="Last used">
									<Time iso={key.lastUsedAt} now={ctx.now} />
								</td>
								<td class="actions">
									{/* Without JavaScript the button opens the confirmation page; with it the page's dialog asks (app.js), then htmx posts. */}
									<form
										method="get"
										action={`/devices/${key.id}/revoke`}
										hx-post={`/devices/${key.id}/revoke`}
										hx-confirm={`Revoke the key of "${key.device}"? That device is signed out at once.`}
										data-confirm-button="Revoke"
										hx-target="#devices-list"
										hx-swap="outerHTML"
									>
										<button type="submit" class="danger" autofocus={focus === key.id || undefined}>
											Revoke
										</button>
									</form>
								</td>
							</tr>
						))}
					</tbody>
				</table>
			)}
		</div>
	)
}

export function DevicesPage({ ctx, keys, notice }: { ctx: ViewContext; keys: KeyView[]; notice?: string }) {
	return (
		<Layout ctx={ctx} title="Devices">
			<ListHeading list={LIST.id} title={LIST.title} level={LIST.level} />
			<Notice message={notice} />
			<p class="lead">
				Each device that signed in with the cfgsync client has one key. Revoke a key you no longer use, or that was on a
				lost machine: the API refuses it at once. A new machine? <InstallClientLink />, then run{' '}
				<code>cfgsync login</code>. For CI, make a read-only key (<code>cfgsync login --read-only</code>): it can pull
				but never change anything.
			</p>
			<ListStatus list={LIST.id} />
			<DevicesList ctx={ctx} keys={keys} />
		</Layout>
	)
}

export const devicesPages = ({ auth }: WebDeps) => {
	const keyOf = async (web: PageContext['web'], id: string) => {
		const key = (await auth.listKeys(web)).find((candidate) => candidate.id === id)
		if (!key)
			throw new AppError('not_found', 'No such key: it may have been revoked already. Open Devices to see the others.')
		return key
	}

	return {
		list: ({ request, web, view }: PageContext) =>
			attempt(request, view, async () =>
				page(<DevicesPage ctx={view} keys={await auth.listKeys(web)} notice={noticeOf(request)} />)
			),

		/** Asks first, naming the device (docs/web.md, safe to use). */
		revokePage: ({ request, web, view, params }: PageContext & { params: { id: string } }) =>
			attempt(request, view, async () => {
				const key = await keyOf(web, params.id)
				return page(
					<ConfirmPage
						ctx={view}
						title={`Revoke ${key.device}`}
						question={`Revoke the key of "${key.device}"? That device is signed out at once and needs cfgsync login to sync again.`}
						action={`/devices/${key.id}/revoke`}
						button="Revoke"
						cancel="/devices"
					/>
				)
			}),

		revoke: ({ request, web, view, actor, params }: ChangeContext & { params: { id: string } }) =>
			attempt(request, view, async () => {
				const before = isHtmx(request) ? await auth.listKeys(web) : []
				await auth.revokeKey(actor, params.id)
				if (!isHtmx(request)) return redirect('/devices?notice=revoked')
				const keys = await auth.listKeys(web)
				const device = before.find((key) => key.id === params.id)?.device ?? 'that device'
				const focus = nextRowId(
					before.map((key) => key.id),
					params.id,
					keys.map((key) => key.id)
				)
				return inPlace(
					LIST,
					<DevicesList ctx={view} keys={keys} focus={focus} />,
					`The key of "${device}" was revoked: that device can no longer reach the server.`,
					focus === undefined
				)
			})
	}
}
