import { PLANS } from '../../../shared/constants'
import { linkState, SIGNUP_DEFAULTS, type SignupLinkView } from '../../modules/signup/service'
import { attempt, page, redirect, type ChangeContext, type PageContext, type WebDeps } from '../kit'
import { FieldError, FormAlert, fieldState, type FormState } from '../forms'
import { ConfirmPage, Csrf, Secret, Time, type ViewContext } from '../layout'

// The Admin page's "Invite people" (docs/web.md): sign-up links made, listed and revoked.

const STATE_TEXT = { active: 'active', used_up: 'used up', expired: 'expired', revoked: 'revoked' } as const

/** How a link is named where only its first characters are known (the token itself is never stored). */
export const linkName = (link: Pick<SignupLinkView, 'hint'>) => `/join/${link.hint}…`

/** The form's name in a failed form's state (forms.tsx). */
export const INVITE_PEOPLE = 'invite-people'

/** The form "Invite people" and the links made so far. */
export function InvitePeople({
	ctx,
	links,
	form
}: {
	ctx: ViewContext
	links: SignupLinkView[]
	/** A failed "Invite people", back after its redirect (forms.tsx). */
	form?: FormState
}) {
	const plan = fieldState(form, INVITE_PEOPLE, 'plan', 'link-plan')
	const uses = fieldState(form, INVITE_PEOPLE, 'uses', 'link-uses', 'link-uses-hint')
	const days = fieldState(form, INVITE_PEOPLE, 'days', 'link-days')
	return (
		<>
			<section class="narrow">
				<h2 id="invite-people">Invite people</h2>
				<p>
					A sign-up link lets whoever opens it create their own account, on the plan you choose, with a password only
					they know. Send it over a channel you trust; it is shown once.
				</p>
				<FormAlert state={form} form={INVITE_PEOPLE} />
				<form method="post" action="/admin/links" class="stack" aria-labelledby="invite-people">
					<Csrf ctx={ctx} />
					<label for="link-plan">Plan</label>
					<select
						id="link-plan"
						name="plan"
						aria-invalid={plan['aria-invalid']}
						aria-describedby={plan['aria-describedby']}
						autofocus={plan.autofocus}
					>
						{PLANS.map((name) => (
							<option value={name} selected={(plan.value ?? 'team') === name}>
								{name}
							</option>
						))}
					</select>
					<FieldError state={form} form={INVITE_PEOPLE} name="plan" id="link-plan" />
					<label for="link-uses">How many uses</label>
					<input
						id="link-uses"
						name="uses"
						type="number"
						inputmode="numeric"
						min={1}
						max={1000}
						required
						value={uses.value ?? String(SIGNUP_DEFAULTS.uses)}
						aria-invalid={uses['aria-invalid']}
						aria-describedby={uses['aria-describedby']}
						autofocus={uses.autofocus}
					/>
					<FieldError state={form} form={INVITE_PEOPLE} name="uses" id="link-uses" />
					<p id="link-uses-hint" class="hint">
						How many accounts it can make.
					</p>
					<label for="link-days">Expires after (days)</label>
					<input
						id="link-days"
						name="days"
						type="number"
						inputmode="numeric"
						min={1}
						max={365}
						required
						value={days.value ?? String(SIGNUP_DEFAULTS.days)}
						aria-invalid={days['aria-invalid']}
						aria-describedby={days['aria-describedby']}
						autofocus={days.autofocus}
					/>
					<FieldError state={form} form={INVITE_PEOPLE} name="days" id="link-days" />
					<button type="submit">Create sign-up link</button>
				</form>
			</section>
			<section>
				<h2 id="links-heading">Sign-up links</h2>
				{links.length === 0 ? (
					<p class="muted">No sign-up link yet.</p>
				) : (
					<table class="stack-on-phone" aria-labelledby="links-heading">
						<thead>
							<tr>
								<th scope="col">Link</th>
								<th scope="col">Plan</th>
								<th scope="col">Used</th>
								<th scope="col">Expires</th>
								<th scope="col">Made by</th>
								<th scope="col">State</th>
								<th scope="col">
									<span class="visually-hidden">Actions</span>
								</th>
							</tr>
						</thead>
						<tbody>
							{links.map((link) => {
								const state = linkState(link, ctx.now)
								return (
									<tr id={`link-${link.id}`}>
										<th scope="row" data-label="Link">
											<code>{linkName(link)}</code>
										</th>
										<td data-label="Plan">{link.plan}</td>
										<td data-label="Used" class="num">
											{link.uses} of {link.maxUses}
										</td>
										<td data-label="Expires">
											<Time iso={link.expiresAt} now={ctx.now} />
										</td>
										<td data-label="Made by">{link.createdByName ?? '—'}</td>
										<td data-label="State">{STATE_TEXT[state]}</td>
										<td class="actions">
											{state === 'active' ? (
												// Asks first, on a page of its own (docs/web.md, safe to use).
												<form method="get" action={`/admin/links/${link.id}/revoke`}>
													<button type="submit" class="secondary" aria-label={`Revoke ${linkName(link)}`}>
														Revoke
													</button>
												</form>
											) : null}
										</td>
									</tr>
								)
							})}
						</tbody>
					</table>
				)}
			</section>
		</>
	)
}

/** The link just made, shown once on the page the redirect leads to. */
export function NewLink({ url, uses, days }: { url: string; uses: number; days: number }) {
	return (
		<section class="card one-time" aria-labelledby="new-link-title">
			<h2 id="new-link-title">New sign-up link</h2>
			<p>
				Good for {uses} account{uses === 1 ? '' : 's'} within {days} day{days === 1 ? '' : 's'}. Send it over a channel
				you trust; it is shown only this once (you can revoke it below).
			</p>
			<Secret id="new-link-secret" label="New sign-up link" value={url} />
		</section>
	)
}

type OnLink = { params: { id: string } }

export const adminLinkPages = ({ signups }: WebDeps) => ({
	revokePage: ({ request, view, params }: PageContext & OnLink) =>
		attempt(request, view, async () => {
			const link = await signups.findLink(params.id)
			return page(
				<ConfirmPage
					ctx={view}
					title={`Revoke the sign-up link ${linkName(link)}`}
					question={`Revoke the sign-up link ${linkName(link)} (${link.plan} plan, used ${link.uses} of ${link.maxUses})? Nobody can sign up with it any more; accounts made with it stay.`}
					action={`/admin/links/${link.id}/revoke`}
					button="Revoke link"
					cancel="/admin"
				/>
			)
		}),

	revoke: ({ request, view, actor, params }: ChangeContext & OnLink) =>
		attempt(request, view, async () => {
			await signups.revokeLink(params.id, actor)
			return redirect('/admin?notice=link-revoked')
		})
})
