import { expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

// The layout's rules (docs/architecture.md): two programs and what they share. src/server and
// src/client never import each other; src/shared imports neither; nothing imports in a circle.

const SRC = resolve(import.meta.dir, '..', 'src')
const SPECIFIER = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g

function sourceFiles(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name)
		if (statSync(path).isDirectory()) return sourceFiles(path)
		return /\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [path] : []
	})
}

function resolveImport(from: string, specifier: string): string | undefined {
	const base = resolve(dirname(from), specifier)
	for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')]) {
		if (existsSync(candidate) && statSync(candidate).isFile()) return candidate
	}
	return undefined
}

/** Each source file's imports of other source files (relative imports only; packages are not ours). */
const graph = new Map<string, string[]>()
for (const file of sourceFiles(SRC)) {
	const text = readFileSync(file, 'utf8')
	const targets = [...text.matchAll(SPECIFIER)]
		.map((match) => resolveImport(file, match[1] as string))
		.filter((target): target is string => target?.startsWith(SRC) ?? false)
	graph.set(file, targets)
}
const area = (file: string) => relative(SRC, file).split('/')[0] as string

test('src/server and src/client never import each other; src/shared imports neither; src/index.ts is the server entry', () => {
	const broken: string[] = []
	for (const [file, targets] of graph) {
		for (const target of targets) {
			const [from, to] = [area(file), area(target)]
			const allowed = from === to || to === 'shared' || (from === 'index.ts' && to === 'server')
			if (!allowed) broken.push(`${relative(SRC, file)} → ${relative(SRC, target)}`)
		}
	}
	expect(broken).toEqual([])
	expect([...new Set([...graph.keys()].map(area))].sort()).toEqual(['client', 'index.ts', 'server', 'shared'])
})

test('no import cycles', () => {
	const cycles: string[] = []
	const state = new Map<string, 'open' | 'done'>()
	const path: string[] = []
	const visit = (file: string) => {
		if (state.get(file) === 'done') return
		if (state.get(file) === 'open') {
			cycles.push([...path.slice(path.indexOf(file)), file].map((step) => relative(SRC, step)).join(' → '))
			return
		}
		state.set(file, 'open')
		path.push(file)
		for (const target of graph.get(file) ?? []) visit(target)
		path.pop()
		state.set(file, 'done')
	}
	for (const file of graph.keys()) visit(file)
	expect(cycles).toEqual([])
})
