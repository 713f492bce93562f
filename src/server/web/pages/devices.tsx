import { RenameKeyBody, type KeyView } from '../../../shared/api/auth'
import { AppError } from '../../lib/errors'
import { FieldError, fieldOfZod, fieldState, formFailed, formStateOf, refusal, type FormState } from '../forms'
import {
	attempt,
	field,
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
	Csrf,
	InstallClientLink,
	Layout,
	ListHeading,
	ListStatus,
	Notice,
	Time,
	type ViewContext
} from '../layout'

// The Devices page (docs/web.md): one key per device, each renamed in its row and revocable after a confirmation.

const LIST = { id: 'devices', title: 'Devices', level: 1 } as const

/** Each row's "Rename" is a form of its own, named by its key: a failed one comes back in its own row. */
const renameForm = (keyId: string) => `rename-device-${keyId}`

/** One device's "Rename": its name in a field, saved by its button (named after the device, as Revoke is). */
function RenameDevice({ ctx, device, form }: { ctx: ViewContext; device: KeyView; form?: FormState }) {
	const id = `rename-${device.id}`
	const name = fieldState(form, renameForm(device.id), 'name', id)
	return (
		<form method="post" action={`/devices/${device.id}/rename`} class="role-form rename-form">
			<Csrf ctx={ctx} />
			<label for={id} class="visually-hidden">
				New name of {device.device}
			</label>
			<input
				id={id}
				name="name"
				type="text"
				required
				maxlength={100}
				autocomplete="off"
				{...name}
				value={name.value ?? device.device}
			/>
			<button type="submit" class="secondary small">
				Rename<span class="visually-hidden"> {device.device}</span>
			</button>
			<FieldError state={form} form={renameForm(device.id)} name="name" id={id} />
		</form>
	)
}

/** The devices table (or its empty state): what a revocation swaps in place; `focus` names the row whose button takes the focus. */
export function DevicesList({
	ctx,
	keys,
	focus,
	form
}: {
	ctx: ViewContext
	keys: KeyView[]
	focus?: string
	/** A failed "Rename", back after its redirect (forms.tsx). */
	form?: FormState
}) {
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
									<RenameDevice ctx={ctx} device={key} form={form} />
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
											Revoke<span class="visually-hidden"> {key.device}</span>
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

export function DevicesPage({
	ctx,
	keys,
	notice,
	form
}: {
	ctx: ViewContext
	keys: KeyView[]
	notice?: string
	form?: FormState
}) {
	return (
		<Layout ctx={ctx} title="Devices">
			<ListHeading list={LIST.id} title={LIST.title} level={LIST.level} />
			<Notice message={notice} />
			<p class="lead">
				Each device that signed in with the cfgsync client has one key. Revoke a key you no longer use, or that was on a
				lost machine: the API refuses it at once. A name can be changed in its row: the device keeps its key. A new
				machine? <InstallClientLink />, then run <code>cfgsync login</code>. For CI, make a read-only key (
				<code>cfgsync login --read-only</code>): it can pull but never change anything.
			</p>
			<ListStatus list={LIST.id} />
			<DevicesList ctx={ctx} keys={keys} form={form} />
		</Layout>
	)
}

export const devicesPages = (deps: WebDeps) => {
	const { auth } = deps
	const keyOf = async (web: PageContext['web'], id: string) => {
		const key = (await auth.listKeys(web)).find((candidate) => candidate.id === id)
		if (!key)
			throw new AppError('not_found', 'No such key: it may have been revoked already. Open Devices to see the others.')
		return key
	}

	return {
		list: ({ request, web, view }: PageContext) =>
			attempt(request, view, async () => {
				const keys = await auth.listKeys(web)
				const { state, headers } = formStateOf(
					deps,
					request,
					web,
					keys.map((key) => renameForm(key.id))
				)
				return page(<DevicesPage ctx={view} keys={keys} notice={noticeOf(request)} form={state} />, { headers })
			}),

		/** docs/web.md Devices: a device's new name, checked as the API checks it (PATCH /api/keys/:id). */
		rename: ({ request, web, view, actor, params, body }: ChangeContext & { params: { id: string } }) =>
			attempt(request, view, async () => {
				const key = await keyOf(web, params.id)
				const name = field(body, 'name')
				const failed = (more: Pick<FormState, 'errors' | 'general'>) =>
					formFailed(deps, request, web, '/devices', { form: renameForm(key.id), values: { name }, ...more })
				const parsed = RenameKeyBody.safeParse({ name })
				if (!parsed.success) return failed({ errors: { name: fieldOfZod(parsed.error, 'name').message } })
				try {
					await auth.renameKey(actor, key.id, parsed.data.name)
				} catch (error) {
					return failed(refusal(error, 'name'))
				}
				return redirect('/devices?notice=device-renamed')
			}),

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
