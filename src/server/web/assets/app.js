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
