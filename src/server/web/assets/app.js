// cfgsync web application: its one script of its own (docs/web.md). Every page works without it; it adds
// the "Show password" buttons, which stay hidden without a script because they could do nothing then.
// Pages come with html.no-js, under which the stylesheet unfolds what is folded: a script is here.
document.documentElement.classList.remove('no-js')
for (const button of document.querySelectorAll('button[data-reveals]')) {
	const field = document.getElementById(button.getAttribute('data-reveals') ?? '')
	if (!(field instanceof HTMLInputElement)) continue
	const show = (shown) => {
		field.type = shown ? 'text' : 'password'
		button.setAttribute('aria-pressed', String(shown))
	}
	button.addEventListener('click', () => show(field.type === 'password'))
	// Hidden again when the form is sent, so the browser never keeps the password as plain text typed into a form.
	field.form?.addEventListener('submit', () => show(false))
	button.hidden = false
}

// The "Copy" button of each file on a config's page, of a command on /download and of a secret shown once
// (docs/web.md): copies the whole file, the lines
// behind "Show all" too (folded or not), and says in the file's status region whether it worked. Hidden without a
// script for the same reason; the text stays selectable either way.
/** The Clipboard API where the page is a secure context and allows it, else the selection and execCommand. */
const copyText = async (text, source) => {
	try {
		if (navigator.clipboard && window.isSecureContext) {
			await navigator.clipboard.writeText(text)
			return true
		}
	} catch {
		// Refused (no permission, no focus): the older way may still work.
	}
	const selection = window.getSelection()
	if (!selection) return false
	selection.selectAllChildren(source)
	try {
		return document.execCommand('copy')
	} catch {
		return false
	} finally {
		selection.removeAllRanges()
	}
}
for (const button of document.querySelectorAll('button[data-copy]')) {
	const id = button.getAttribute('data-copy') ?? ''
	const source = document.getElementById(id)
	const status = document.getElementById(`${id}-status`)
	if (!source) continue
	button.addEventListener('click', async () => {
		// The file's text parts (the first lines, and those behind "Show all"), without the button between them;
		// a secret shown once (no pre) is its own text.
		const parts = [...source.querySelectorAll('pre')]
		const text =
			parts.length > 0 ? parts.map((part) => part.textContent ?? '').join('') : (source.textContent ?? '').trim()
		const copied = await copyText(text, source)
		if (status)
			status.textContent = copied
				? 'Copied.'
				: 'Could not copy here: select the text and copy it with your keyboard or menu.'
	})
	button.hidden = false
}

// Long text folded (docs/web.md): a file's lines past the first 30 behind "Show all", a comparison's runs of
// unchanged lines behind "⋯ N unchanged lines". Each such button (`data-collapses`) controls its part
// (aria-controls, aria-expanded) and opens and folds it again. A file's page holds all of it, folded; a
// comparison's page holds only a run's count: its button (`data-fetch`) has htmx fetch the lines into its part
// when it is opened empty (again after a failure, whose alert htmx shows). Without a script the stylesheet
// shows a file's parts and hides the buttons, and each run has a link to its lines instead. A diff swapped in by
// htmx is wired the same way.
const fold = (root) => {
	for (const button of root.querySelectorAll('button[data-collapses]')) {
		if (button.dataset.folds === 'yes') continue
		const part = document.getElementById(button.getAttribute('aria-controls') ?? '')
		if (!part) continue
		button.addEventListener('click', () => {
			const opened = button.getAttribute('aria-expanded') !== 'true'
			const source = button.getAttribute('data-fetch')
			if (opened && source && part.childElementCount === 0) {
				if (window.htmx) window.htmx.ajax('GET', source, { target: part, swap: 'innerHTML' })
				else window.location.assign(source)
			}
			part.hidden = !opened
			button.setAttribute('aria-expanded', String(opened))
		})
		button.dataset.folds = 'yes'
	}
}
fold(document)
document.addEventListener('htmx:load', (event) => fold(event.detail.elt))

// Live changes (docs/web.md): the configs list, a config's page and a team's page carry a notice region
// (`data-live`: what the page shows). While such a page is open it listens to /events, the same events as
// the API's stream, and says when what it shows has changed ("Version 5 was pushed from laptop — Reload").
// Other pages open no stream. If the stream fails the page simply stays as it is; EventSource reconnects
// by itself (and stops after a 401 or 429, when the session ended or too many streams are open).
const live = document.querySelector('[data-live]')
if (live && 'EventSource' in window) {
	const [kind, watched] = (live.getAttribute('data-live') ?? '').split(':')
	const viewer = document.querySelector('.signout .who')?.textContent ?? ''
	const concerns = (change) =>
		kind === 'configs' || (kind === 'config' && change.id === watched) || (kind === 'team' && change.teamId === watched)
	/** One change as a sentence: what happened, from which device, and by whom when it was someone else. */
	const sentence = (change) => {
		const from = `${change.by?.device ? ` from ${change.by.device}` : ''}${change.by?.username && change.by.username !== viewer ? ` by ${change.by.username}` : ''}`
		const alone = kind === 'config'
		if (change.deleted)
			return alone ? `This config was deleted${from}` : `${change.name} (${change.tool}) was deleted${from}`
		const what = `version ${change.version} was pushed${from}`
		return alone ? `${what.charAt(0).toUpperCase()}${what.slice(1)}` : `${change.name} (${change.tool}): ${what}`
	}
	let changes = 0
	const show = (text) => {
		const reload = document.createElement('button')
		reload.type = 'button'
		reload.className = 'secondary small'
		reload.textContent = 'Reload'
		reload.addEventListener('click', () => window.location.reload())
		live.replaceChildren(`${text} — `, reload)
	}
	// From the feed's position when the page was made: a change on its way meanwhile is announced too.
	const from = live.getAttribute('data-live-from')
	const source = new EventSource(from ? `/events?after=${encodeURIComponent(from)}` : '/events')
	source.addEventListener('config', (event) => {
		let change
		try {
			change = JSON.parse(event.data)
		} catch {
			return
		}
		if (!change || typeof change !== 'object' || !concerns(change)) return
		changes++
		const earlier = changes - 1
		show(
			earlier > 0
				? `${sentence(change)}, after ${earlier} other change${earlier === 1 ? '' : 's'} since this page was loaded`
				: sentence(change)
		)
	})
	// Events were missed (the server could not replay them): what the page shows may be out of date.
	source.addEventListener('reset', () => show('This page may be out of date'))
	source.addEventListener('revoked', () => source.close())
}

// Confirmations in the page's own dialog (docs/web.md, safe to use). Revoke, Remove, "Cancel invitation", Revoke
// keys and Remove user post in place with htmx; their form's hx-confirm holds the question, naming the target, and
// data-confirm-button the action. htmx announces each request as `htmx:confirm` before it sends it: the question is
// asked here, in a modal <dialog> with that action's button and "Cancel", instead of the browser's confirm(). Cancel
// or Escape changes nothing and gives the focus back to the row's button; the action sends the request as before
// (the list is swapped in, its status region says what happened, the focus moves on). Without a script the buttons
// open the confirmation pages instead.
/** The one dialog of the page, made when first needed. */
let confirmation
const confirmationDialog = () => {
	if (confirmation) return confirmation
	const dialog = document.createElement('dialog')
	dialog.className = 'confirm'
	dialog.setAttribute('aria-labelledby', 'confirm-question')
	const question = document.createElement('p')
	question.id = 'confirm-question'
	const actions = document.createElement('div')
	actions.className = 'inline-actions'
	const proceed = document.createElement('button')
	proceed.type = 'button'
	proceed.className = 'danger'
	const cancel = document.createElement('button')
	cancel.type = 'button'
	cancel.className = 'secondary'
	cancel.textContent = 'Cancel'
	actions.append(proceed, cancel)
	dialog.append(question, actions)
	document.body.append(dialog)
	proceed.addEventListener('click', () => dialog.close('proceed'))
	cancel.addEventListener('click', () => dialog.close('cancel'))
	confirmation = { dialog, question, proceed, cancel }
	return confirmation
}
document.addEventListener('htmx:confirm', (event) => {
	const { question, elt, triggeringEvent, issueRequest } = event.detail
	if (!question) return
	event.preventDefault()
	const asked = confirmationDialog()
	// The button the request came from (a form's submitter), which takes the focus back when nothing is done.
	const opener = triggeringEvent?.submitter ?? elt.querySelector('button') ?? elt
	asked.question.textContent = question
	asked.proceed.textContent = elt.getAttribute('data-confirm-button') ?? 'Confirm'
	asked.dialog.returnValue = ''
	// While it asks, the rest of the page is out of reach for assistive technology too, not only for the
	// pointer and keyboard: a screen reader (or a test) finds the dialog's buttons, not the rows' behind it.
	const behind = [...document.body.children].filter(
		(element) => element !== asked.dialog && !element.hasAttribute('aria-hidden') && !element.inert
	)
	for (const element of behind) {
		element.inert = true
		element.setAttribute('aria-hidden', 'true')
	}
	asked.dialog.addEventListener(
		'close',
		() => {
			for (const element of behind) {
				element.inert = false
				element.removeAttribute('aria-hidden')
			}
			if (asked.dialog.returnValue === 'proceed') issueRequest(true)
			else opener.focus()
		},
		{ once: true }
	)
	asked.dialog.showModal()
	// The safe choice has the focus: Enter on a dialog opened by accident changes nothing.
	asked.cancel.focus()
})
