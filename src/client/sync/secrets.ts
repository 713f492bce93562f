import { parse as parseToml } from 'smol-toml'
import { MCP_CONTAINERS, MCP_SECRET_FIELDS } from '../tools/registry'
import { isJsonKey, isObject, parseJsonc, pathText, type Json } from './json'

/**
 * Values that look like secrets (docs/sync-model.md): the credential fields
 * of MCP servers where each tool's descriptor keeps them (src/client/tools/:
 * `env`, `headers`), and in every file keys named like
 * token/secret/password/api_key and well-known token prefixes. A team push
 * carrying a new one is refused unless `--allow-secrets`; a personal push
 * notes it once. Findings name where the value sits, never the value.
 */

export interface Secret {
	/** Where it is: a JSON/TOML path, or `line N` in other text. */
	path: string
	/** Kept only to tell a value the server already has from a new one; never printed. */
	value: string
}

/** Well-known token formats: GitHub, OpenAI/Anthropic, Slack, AWS, GitLab, Google, npm, Stripe, Hugging Face. */
const TOKEN =
	/(?:\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{16,}|xox[abposr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|glpat-[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{30,}|npm_[A-Za-z0-9]{30,}|[rs]k_live_[A-Za-z0-9]{16,}|hf_[A-Za-z0-9]{30,}))/
/** Key names that hold secrets. */
const SECRET_NAME =
	/token|secret|passw|pwd|api[-_]?key|apikey|access[-_]?key|private[-_]?key|credential|authorization|auth[-_]?key|bearer|cookie/i
/** `${VAR}`, `${env:VAR}`, `$VAR`, `{env:VAR}`, `%VAR%`, `<your token>`: a reference, not a value. */
const PLACEHOLDER =
	/^(?:\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\{\{?[^}]*\}\}?|\{env:[^}]*\}|%[A-Za-z_][A-Za-z0-9_]*%|<[^>]*>|x{3,}|\*{3,})$/i
const PLAIN = /^(?:true|false|yes|no|on|off|null|none|\d+(?:\.\d+)?)$/i

const worthChecking = (value: string) =>
	value.trim() !== '' && !PLACEHOLDER.test(value.trim()) && !PLAIN.test(value.trim())

/** Does an MCP env or header value look like a credential rather than a setting? */
function looksLikeCredential(value: string): boolean {
	if (/^(?:bearer|basic|token)\s+\S{8,}$/i.test(value)) return true
	if (/\s/.test(value)) return false
	if (/^(?:https?:\/\/|\/|~|\.{1,2}\/|[A-Za-z]:\\)/.test(value)) return /:\/\/[^/@\s]+:[^/@\s]+@/.test(value)
	if (value.length >= 20) return true
	return value.length >= 8 && /[A-Za-z]/.test(value) && /\d/.test(value)
}

function walk(value: Json, path: (string | number)[], found: Secret[]): void {
	if (typeof value === 'string') {
		if (!worthChecking(value)) return
		const name = path[path.length - 1]
		const parent = path[path.length - 2]
		const inMcp =
			typeof parent === 'string' &&
			MCP_SECRET_FIELDS.has(parent) &&
			path.slice(0, -3).some((part) => typeof part === 'string' && MCP_CONTAINERS.has(part))
		const named = typeof name === 'string' && SECRET_NAME.test(name)
		if (TOKEN.test(value) || named || (inMcp && looksLikeCredential(value))) found.push({ path: pathText(path), value })
		return
	}
	if (Array.isArray(value)) {
		for (const [i, item] of value.entries()) walk(item, [...path, i], found)
	} else if (isObject(value)) for (const key of Object.keys(value)) walk(value[key] as Json, [...path, key], found)
}

/** Lines of other text: token formats, and `name = value` / `"name": "value"` with a secret-like name. */
function scanText(content: string, found: Secret[]): void {
	content.split(/\r?\n/).forEach((line, i) => {
		const assignment = /["']?([A-Za-z0-9_.-]+)["']?\s*[:=]\s*["']?([^"'\s,]+)/.exec(line)
		const named = assignment && SECRET_NAME.test(assignment[1] as string) && worthChecking(assignment[2] as string)
		if (TOKEN.test(line) || named) found.push({ path: `line ${i + 1}`, value: line.trim() })
	})
}

/** The secret-looking values in one file. */
export function findSecrets(key: string, content: string): Secret[] {
	const found: Secret[] = []
	if (isJsonKey(key)) {
		const parsed = parseJsonc(content)
		if (parsed) {
			walk(parsed.value, [], found)
			return found
		}
	} else if (/\.toml$/i.test(key)) {
		try {
			walk(JSON.parse(JSON.stringify(parseToml(content.replace(/^\uFEFF/, '')))) as Json, [], found)
			return found
		} catch {
			// not TOML after all: scanned as text below
		}
	}
	scanText(content, found)
	return found
}

/** Secrets in `content` that the server's copy (`remote`) does not already hold at the same place. */
export function newSecrets(key: string, content: string, remote: string | undefined): Secret[] {
	const known = new Set(remote === undefined ? [] : findSecrets(key, remote).map((s) => `${s.path}\u0000${s.value}`))
	return findSecrets(key, content).filter((s) => !known.has(`${s.path}\u0000${s.value}`))
}
