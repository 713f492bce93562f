import type { KeyView } from '../../../shared/api/auth'
import { attempt, done, noticeOf, page, type ChangeContext, type PageContext, type WebDeps } from '../kit'
import { Csrf, Layout, Notice, Time, type ViewContext } from '../layout'

// The Devices page (docs/web.md): one key per device, each revocable.

export function DevicesPage({ ctx, keys, notice }: { ctx: ViewContext; keys: KeyView[]; notice?: string }) {
	return (
		<Layout ctx={ctx} title="Devices">
			<h1>Devices</h1>
			<Notice message={notice} />
			<p class="lead">
				Each device that signed in with the cfgsync client has one key. Revoke a key you no longer use, or that was on a
				lost machine: the API refuses it at once.
			</p>
			{keys.length === 0 ? (
				<p class="empty">
					No device has a key. Run <code>cfgsync login</code> on a machine to add one.
				</p>
			) : (
				<table class="stack-on-phone">
					<thead>
						<tr>
							<th scope="col">Device</th>
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
								<td data-label="Created">
									<Time iso={key.createdAt} now={ctx.now} />
								</td>
								<td data-label="Last used">
									<Time iso={key.lastUsedAt} now={ctx.now} />
								</td>
								<td class="actions">
									<form
										method="post"
										action={`/devices/${key.id}/revoke`}
										hx-post={`/devices/${key.id}/revoke`}
										hx-target="closest tr"
										hx-swap="delete"
										hx-confirm={`Revoke the key of "${key.device}"? That device is signed out at once.`}
									>
										<Csrf ctx={ctx} />
										<button type="submit" class="danger">
											Revoke
										</button>
									</form>
								</td>
							</tr>
						))}
					</tbody>
				</table>
			)}
		</Layout>
	)
}

export const devicesPages = ({ auth }: WebDeps) => ({
	list: ({ request, web, view }: PageContext) =>
		attempt(request, view, async () =>
			page(<DevicesPage ctx={view} keys={await auth.listKeys(web)} notice={noticeOf(request)} />)
		),

	revoke: ({ request, view, actor, params }: ChangeContext & { params: { id: string } }) =>
		attempt(request, view, async () => {
			await auth.revokeKey(actor, params.id)
			return done(request, '/devices?notice=revoked')
		})
})
