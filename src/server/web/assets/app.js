// cfgsync web application: its one script of its own (docs/web.md). Every page works without it; it adds
// the "Show password" buttons, which stay hidden without a script because they could do nothing then.
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

// The "Copy" button of each file on a config's page (docs/web.md): copies the whole file, the lines
// behind "Show all" too, and says in the file's status region whether it worked. Hidden without a
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
		// The file's text parts (the first lines, and those behind "Show all"), without the control between them.
		const text = [...source.querySelectorAll('pre')].map((part) => part.textContent ?? '').join('')
		const copied = await copyText(text, source)
		if (status)
			status.textContent = copied
				? 'Copied.'
				: 'Could not copy here: select the text and copy it with your keyboard or menu.'
	})
	button.hidden = false
}
