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
	if (/^(?:https?:\/\/|\/|~|\.{1,2}\/|[A-Za-z]:\\)/.test(value)) return hasPassword(value)
	if (value.length >= 20) return true
	return value.length >= 8 && /[A-Za-z]/.test(value) && /\d/.test(value)
}

/**
 * A URL that carries a password (`scheme://user:password@host`). Written as
 * a scan rather than a regular expression: `[^/@]+:[^/@]+@` backtracks over
 * every colon of a long value, and the content checked may come from the
 * server, which must never cost more than linear time (docs/client.md).
 */
function hasPassword(value: string): boolean {
	for (let at = value.indexOf('://'); at !== -1; at = value.indexOf('://', at + 3)) {
		// The authority: up to the first `/`, `@` or space (a value with spaces never gets here).
		let end = at + 3
		while (end < value.length && value[end] !== '/' && value[end] !== '@') end++
		if (value[end] !== '@') continue
		// `user:password`: a colon inside the authority with something on both sides, the password no reference.
		const colon = value.indexOf(':', at + 4)
		if (colon === -1 || colon >= end - 1) continue
		if (!/^(?:\$|\{|%|<)/.test(value.slice(colon + 1, colon + 2))) return true
	}
	return false
}

/** `?api_key=…`, `&token=…`, `key=…` with a long value in a URL's query. */
const QUERY_SECRET =
	/[?&](?:api[-_]?key|apikey|key|token|access[-_]?token|auth[-_]?token|secret|client[-_]?secret|password|passwd|sig|signature)=([^&#\s"']{12,})/i
/** An `Authorization:` header with a value, in any string (a hook's curl command, an MCP argument). */
const AUTHORIZATION = /\bauthorization\s*:\s*(?:bearer|basic|token|digest)\s+([A-Za-z0-9._~+/=:-]{8,})/i
const PRIVATE_KEY = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/

/**
 * A credential carried inside a longer value (docs/sync-model.md): a URL with
 * a password, a key-like query parameter with a long value, an Authorization
 * header, a private-key block. Each expression is anchored at a fixed word and
 * has no nested repetition, so a scan stays linear.
 */
function carriesCredential(value: string): boolean {
	if (value.includes('://') && hasPassword(value)) return true
	const query = QUERY_SECRET.exec(value)?.[1]
	if (query !== undefined && worthChecking(query)) return true
	const header = AUTHORIZATION.exec(value)?.[1]
	if (header !== undefined && worthChecking(header)) return true
	return PRIVATE_KEY.test(value)
}

/** How much of a path `place` shows: parts, and characters of one key. */
const SHOWN_PARTS = 16
const SHOWN_KEY = 100

/**
 * Where a value sits, for messages and to tell places apart. A hostile file
 * can nest thousands of levels or use megabyte-long keys; writing the whole
 * path for each of its values would cost depth × values, so a long path shows
 * its first and last parts and a long key its beginning (the same cost for
 * every value, however deep).
 */
function place(path: (string | number)[]): string {
	const clip = (part: string | number) =>
		typeof part === 'string' && part.length > SHOWN_KEY ? `${part.slice(0, SHOWN_KEY)}…` : part
	if (path.length <= SHOWN_PARTS) return pathText(path.map(clip))
	const head = pathText(path.slice(0, SHOWN_PARTS / 2).map(clip))
	const tail = path.slice(-SHOWN_PARTS / 2 + 1).map(clip)
	return `${head}[…${path.length - SHOWN_PARTS + 1} more…]${typeof tail[0] === 'number' ? '' : '.'}${pathText(tail)}`
}

/**
 * Every string in a parsed file, with its path. One path array is pushed and
 * popped as the walk goes (copying it at every level costs depth × nodes),
 * and `container` remembers where the first MCP server list is on it.
 */
function walk(value: Json, path: (string | number)[], container: number, found: Secret[]): void {
	if (typeof value === 'string') {
		if (!worthChecking(value)) return
		const name = path[path.length - 1]
		const parent = path[path.length - 2]
		// A server's field inside a server list: container → server → env/headers → name.
		const inMcp =
			typeof parent === 'string' && MCP_SECRET_FIELDS.has(parent) && container !== -1 && container <= path.length - 4
		const named = typeof name === 'string' && SECRET_NAME.test(name)
		if (TOKEN.test(value) || named || (inMcp && looksLikeCredential(value)) || carriesCredential(value))
			found.push({ path: place(path), value })
		return
	}
	const into = (part: string | number, item: Json) => {
		path.push(part)
		const first = container === -1 && typeof part === 'string' && MCP_CONTAINERS.has(part) ? path.length - 1 : container
		walk(item, path, first, found)
		path.pop()
	}
	if (Array.isArray(value)) {
		for (const [i, item] of value.entries()) into(i, item)
	} else if (isObject(value)) for (const key of Object.keys(value)) into(key, value[key] as Json)
}

/** A run of name characters, and what must follow one for `name = value` or `"name": "value"`. */
const NAME = /[A-Za-z0-9_.-]+/g
const ASSIGNED = /["']?\s*[:=]\s*["']?([^"'\s,]+)/y

/**
 * The first `name = value` or `"name": "value"` on a line. Each run of name
 * characters is tried once, at its end: a single expression searching for
 * `name[:=]value` anywhere retried the whole run from each of its characters,
 * which took seconds on one long line (the content may come from the server,
 * and nothing run on it may cost more than linear time: docs/client.md).
 */
export function assignment(line: string): { name: string; value: string } | undefined {
	NAME.lastIndex = 0
	for (let run = NAME.exec(line); run; run = NAME.exec(line)) {
		ASSIGNED.lastIndex = NAME.lastIndex
		const rest = ASSIGNED.exec(line)
		if (rest) return { name: run[0], value: rest[1] as string }
	}
	return undefined
}

/** Lines of other text: token formats, and `name = value` / `"name": "value"` with a secret-like name. */
function scanText(content: string, found: Secret[]): void {
	content.split(/\r?\n/).forEach((line, i) => {
		const assigned = assignment(line)
		const named = assigned !== undefined && SECRET_NAME.test(assigned.name) && worthChecking(assigned.value)
		if (TOKEN.test(line) || named || carriesCredential(line)) found.push({ path: `line ${i + 1}`, value: line.trim() })
	})
}

/** The secret-looking values in one file. */
export function findSecrets(key: string, content: string): Secret[] {
	const found: Secret[] = []
	if (isJsonKey(key)) {
		const parsed = parseJsonc(content)
		if (parsed) {
			walk(parsed.value, [], -1, found)
			return found
		}
	} else if (/\.toml$/i.test(key)) {
		try {
			walk(JSON.parse(JSON.stringify(parseToml(content.replace(/^\uFEFF/, '')))) as Json, [], -1, found)
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
