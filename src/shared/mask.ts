/**
 * Credentials hidden from text that is shown (the web application's list of
 * a config's MCP servers): a URL's user and password, a key-like query
 * parameter's value, the value after a key-like flag (`--token X`,
 * `--api-key=X`) and well-known token formats. Each check is a scan or an
 * expression anchored at a fixed word with no nested repetition, so the cost
 * stays linear in the text, whatever a pushed file holds.
 */

export const MASK = '•••'

/** Names of flags, parameters and fields that hold secrets. */
const SECRET_NAME =
	/token|secret|passw|pwd|api[-_]?key|apikey|access[-_]?key|private[-_]?key|credential|authorization|auth|bearer|cookie|^key$|^sig$|signature/i
/** Well-known token formats: GitHub, OpenAI/Anthropic, Slack, AWS, GitLab, Google, npm, Stripe, Hugging Face. */
const TOKEN =
	/\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{16,}|xox[abposr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|glpat-[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{30,}|npm_[A-Za-z0-9]{30,}|[rs]k_live_[A-Za-z0-9]{16,}|hf_[A-Za-z0-9]{30,})/g
/** `Bearer …`, `Basic …`, `Token …` followed by a value. */
const SCHEME_VALUE = /\b(bearer|basic|token)(\s+)[^\s"']{8,}/gi

/** Is this the name of something that holds a secret (a flag without its dashes, a parameter, a field)? */
export const secretName = (name: string): boolean => SECRET_NAME.test(name.replace(/^-+/, ''))

/** A URL with its user information and key-like query values masked; other text as it is. */
export function maskUrl(url: string): string {
	const scheme = url.indexOf('://')
	let out = url
	if (scheme !== -1) {
		// The authority ends at the first `/`, `?` or `#`; user information ends at its last `@`.
		let end = scheme + 3
		while (end < out.length && out[end] !== '/' && out[end] !== '?' && out[end] !== '#') end++
		const at = out.lastIndexOf('@', end - 1)
		if (at > scheme + 3) out = `${out.slice(0, scheme + 3)}${MASK}${out.slice(at)}`
	}
	const query = out.indexOf('?')
	if (query === -1) return out
	const hash = out.indexOf('#', query)
	const stop = hash === -1 ? out.length : hash
	const params = out
		.slice(query + 1, stop)
		.split('&')
		.map((param) => {
			const eq = param.indexOf('=')
			return eq !== -1 && secretName(param.slice(0, eq)) && eq < param.length - 1
				? `${param.slice(0, eq + 1)}${MASK}`
				: param
		})
	return `${out.slice(0, query + 1)}${params.join('&')}${out.slice(stop)}`
}

/** One word of text (an argument, a url) with what looks like a credential masked. */
export function maskText(text: string): string {
	let out = text.includes('://') ? maskUrl(text) : text
	const eq = out.indexOf('=')
	if (out.startsWith('-') && eq > 0 && secretName(out.slice(0, eq)) && eq < out.length - 1)
		out = `${out.slice(0, eq + 1)}${MASK}`
	return out.replace(TOKEN, MASK).replace(SCHEME_VALUE, `$1$2${MASK}`)
}

/** A command's arguments with credentials masked, including the value after a key-like flag (`--token X`). */
export function maskArgs(args: readonly string[]): string[] {
	return args.map((arg, i) => {
		const previous = args[i - 1]
		if (previous?.startsWith('-') && !previous.includes('=') && secretName(previous) && !arg.startsWith('-'))
			return MASK
		return maskText(arg)
	})
}
