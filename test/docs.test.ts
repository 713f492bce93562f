import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

// The README and docs/*.md link to each other, to their anchors and to files in the repository:
// every relative link must lead somewhere, so that moving a section or a file cannot leave a
// reader at a dead end (docs/architecture.md, "Working on it").

const ROOT = resolve(import.meta.dir, '..')
const DOCS = join(ROOT, 'docs')

/** README.md and every Markdown file under docs/. */
function documents(): string[] {
	const walk = (dir: string): string[] =>
		readdirSync(dir).flatMap((name) => {
			const path = join(dir, name)
			if (statSync(path).isDirectory()) return walk(path)
			return name.endsWith('.md') ? [path] : []
		})
	return [join(ROOT, 'README.md'), ...walk(DOCS)]
}

/** The text outside fenced code blocks and inline code, line by line (links in code are not links). */
function prose(markdown: string): string[] {
	let fence: string | undefined
	return markdown.split('\n').map((line) => {
		const marker = line.trimStart().match(/^(`{3,}|~{3,})/)?.[1]
		if (marker !== undefined) {
			if (fence === undefined) fence = marker[0] as string
			else if (marker[0] === fence) fence = undefined
			return ''
		}
		return fence === undefined ? line.replace(/`[^`]*`/g, '') : ''
	})
}

/** GitHub's heading anchors (github-slugger): lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
	const seen = new Map<string, number>()
	const result = new Set<string>()
	let fence: string | undefined
	for (const line of markdown.split('\n')) {
		const marker = line.trimStart().match(/^(`{3,}|~{3,})/)?.[1]
		if (marker !== undefined) {
			if (fence === undefined) fence = marker[0] as string
			else if (marker[0] === fence) fence = undefined
			continue
		}
		const heading = fence === undefined ? line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/)?.[1] : undefined
		if (heading === undefined) continue
		const text = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
		const base = text
			.toLowerCase()
			.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
			.replace(/ /g, '-')
		const count = seen.get(base) ?? 0
		seen.set(base, count + 1)
		result.add(count === 0 ? base : `${base}-${count}`)
	}
	return result
}

interface Link {
	from: string
	line: number
	target: string
}

function links(file: string): Link[] {
	return prose(readFileSync(file, 'utf8')).flatMap((line, index) =>
		[...line.matchAll(/!?\[(?:[^\]]|\\\])*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => ({
			from: relative(ROOT, file),
			line: index + 1,
			target: match[1] as string
		}))
	)
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target)

describe('the documentation', () => {
	const files = documents()

	test('docs/ holds the documents the README links to', () => {
		const names = files.map((file) => relative(ROOT, file)).sort()
		for (const name of [
			'architecture',
			'client',
			'sync-model',
			'web',
			'api',
			'operations',
			'postgresql',
			'deploy',
			'performance',
			'decisions'
		]) {
			expect(names).toContain(`docs/${name}.md`)
		}
	})

	test('every relative link leads to a file or directory that exists, and every anchor to a heading', () => {
		const broken: string[] = []
		let checked = 0
		for (const file of files) {
			for (const link of links(file)) {
				if (isExternal(link.target)) continue
				checked++
				const [path = '', anchor] = link.target.split('#') as [string, string | undefined]
				const target = path === '' ? file : resolve(dirname(file), decodeURIComponent(path))
				const where = `${link.from}:${link.line} → ${link.target}`
				if (!target.startsWith(ROOT) || !existsSync(target)) {
					broken.push(`${where} (no such file)`)
					continue
				}
				if (
					anchor !== undefined &&
					!(target.endsWith('.md') && anchors(readFileSync(target, 'utf8')).has(decodeURIComponent(anchor)))
				) {
					broken.push(`${where} (no such heading)`)
				}
			}
		}
		expect(broken).toEqual([])
		expect(checked).toBeGreaterThan(50)
	})

	test('anchors are made the way GitHub makes them', () => {
		const made = anchors(
			[
				'# Health, metrics, audit log, security log',
				"## The client's sync model",
				'## Why p99 on `/api/me` is fragile',
				'## [Linked](x.md) heading',
				'```',
				'# not a heading',
				'```',
				'## Commands',
				'## Commands'
			].join('\n')
		)
		expect([...made]).toEqual([
			'health-metrics-audit-log-security-log',
			'the-clients-sync-model',
			'why-p99-on-apime-is-fragile',
			'linked-heading',
			'commands',
			'commands-1'
		])
	})

	test('the README stays short, and its first commands start the server and run the tests', () => {
		const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
		expect(readme.split('\n').length).toBeLessThanOrEqual(250)
		const first = readme
			.match(/```sh\n([\s\S]*?)```/)?.[1]
			?.split('\n')
			.filter((line) => line !== '')
		expect(first).toEqual([
			'npm ci && npm start     # start the server on http://localhost:8787, data in ./data',
			'npm ci && npm test      # run the tests'
		])
	})
})
