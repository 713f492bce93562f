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

// Inside the server, the layer table of docs/architecture.md ("Import rules"): each layer and what it may import
// of the server's own files, and which packages only some layers may use. Type-only imports count: a page that
// names a store row type still reaches under its service.

const SERVER = join(SRC, 'server')

/** The layer of a file under src/server, by its path there. */
function layerOf(path: string): string {
	if (path === 'build-info.ts' || path.startsWith('lib/')) return 'lib'
	if (['store/types.ts', 'store/change-signal.ts', 'store/unavailable.ts'].includes(path)) return 'store face'
	if (/^store\/(sqlite|postgres)\//.test(path)) return 'engine'
	if (path.startsWith('store/')) return 'store'
	if (/^modules\/[^/]+\/index\.tsx?$/.test(path)) return 'route'
	if (path.startsWith('modules/')) return 'service'
	const top = path.split('/')[0] as string
	if (['plugins', 'events', 'web', 'admin', 'jobs'].includes(top)) return top
	return 'entry' // app.ts, boot.ts, config.ts, settings.ts: they put the layers together
}

/** What each layer may import of the server's files, by layer ("entry" files may import any). */
const MAY_IMPORT: Record<string, string[]> = {
	lib: ['lib'],
	'store face': ['store face', 'store', 'lib'],
	store: ['store face', 'store', 'engine', 'lib'],
	engine: ['store face', 'store', 'engine', 'lib'],
	service: ['service', 'store face', 'lib'],
	route: ['service', 'plugins', 'lib'],
	plugins: ['plugins', 'store face', 'lib'],
	events: ['events', 'plugins', 'store face', 'lib'],
	web: ['web', 'service', 'events', 'plugins', 'lib'],
	admin: ['admin', 'entry', 'jobs', 'events', 'service', 'store face', 'store', 'engine', 'lib'],
	jobs: ['jobs', 'service', 'store face', 'store', 'engine', 'lib']
}

/**
 * Packages only some layers may import, and of the entry's files which (docs/architecture.md: "`elysia` only
 * in routes, plugins, events, web and `app.ts`": boot.ts, config.ts and settings.ts put no app together).
 */
const PACKAGE_LAYERS: [RegExp, string[], string[]][] = [
	[/^(elysia|@elysiajs\/)/, ['route', 'plugins', 'events', 'web'], ['app.ts']],
	[/^(drizzle-orm|bun:sqlite$)/, ['store face', 'store', 'engine'], []]
]

const IMPORT_STATEMENT =
	/^\s*(?:import|export)\b[^'";]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm

/** Each server file's import statements: the specifier and, for a file of ours, its path under src/server. */
const serverImports = sourceFiles(SERVER).map((file) => {
	const text = readFileSync(file, 'utf8')
	const specifiers = [...text.matchAll(IMPORT_STATEMENT)].map((match) => (match[1] ?? match[2] ?? match[3]) as string)
	return {
		path: relative(SERVER, file),
		imports: specifiers.map((specifier) => {
			const target = specifier.startsWith('.') ? resolveImport(file, specifier) : undefined
			return { specifier, path: target?.startsWith(`${SERVER}/`) ? relative(SERVER, target) : undefined }
		})
	}
})

test('inside the server, each layer imports only the layers below it (docs/architecture.md, the layer table)', () => {
	const broken: string[] = []
	for (const { path, imports } of serverImports) {
		const layer = layerOf(path)
		const allowed = MAY_IMPORT[layer]
		for (const target of imports) {
			if (target.path === undefined || allowed === undefined) continue
			const to = layerOf(target.path)
			const sameModule = path.split('/').slice(0, 2).join('/') === target.path.split('/').slice(0, 2).join('/')
			// A route imports its own module's service; a service imports its own module's files and other modules'
			// services, never a route.
			const ok =
				layer === 'route'
					? (to === 'service' && sameModule) || (to !== 'service' && allowed.includes(to))
					: allowed.includes(to)
			// The one page a module serves (/download) is drawn in the frame every page shares.
			const frame = path === 'modules/download/page.tsx' && target.path === 'web/layout.tsx'
			if (!ok && !frame) broken.push(`${path} (${layer}) → ${target.path} (${to})`)
		}
	}
	expect(broken).toEqual([])
})

test('elysia only in routes, plugins, events, web and app.ts; drizzle-orm and bun:sqlite only in store/', () => {
	const broken: string[] = []
	for (const { path, imports } of serverImports) {
		for (const { specifier } of imports) {
			for (const [pattern, layers, files] of PACKAGE_LAYERS) {
				if (pattern.test(specifier) && !layers.includes(layerOf(path)) && !files.includes(path))
					broken.push(`${path} → ${specifier}`)
			}
		}
	}
	expect(broken).toEqual([])
})

test("engine-specific code lives in store/: only boot.ts, admin/ and jobs/ open an engine's store, nothing else asks which engine it is", () => {
	const broken: string[] = []
	for (const { path, imports } of serverImports) {
		if (path.startsWith('store/')) continue
		const opener = path === 'boot.ts' || path.startsWith('admin/') || path.startsWith('jobs/')
		for (const target of imports) {
			if (target.path !== undefined && layerOf(target.path) === 'engine' && !opener)
				broken.push(`${path} → ${target.path}`)
		}
		const code = readFileSync(join(SERVER, path), 'utf8')
			.replace(/\/\*[\s\S]*?\*\//g, '')
			.replace(/^\s*\/\/.*$/gm, '')
		if (/\.engine\b/.test(code)) broken.push(`${path} reads .engine`)
	}
	expect(broken).toEqual([])
})

test('a source file over 500 lines says at its top why it is one file (docs/architecture.md)', () => {
	const unexplained = [...graph.keys()]
		.filter((file) => readFileSync(file, 'utf8').split('\n').length > 500)
		.filter((file) => !/Over 500 lines:/.test(readFileSync(file, 'utf8').split('\n').slice(0, 6).join('\n')))
		.map((file) => relative(SRC, file))
	expect(unexplained).toEqual([])
})

test("client commands speak through their IO: only io.ts and main.ts touch the process's streams and exit status", () => {
	// Signals end the process (lock.ts lets go of the lock first; watch's second Ctrl-C): that is the process's own.
	const allowed: Record<string, RegExp> = {
		'client/io.ts': /process\.(stdout|stderr|stdin)/,
		'client/main.ts': /process\.(exit|argv)/,
		'client/lock.ts': /process\.exit\(128/,
		'client/commands/watch.ts': /process\.exit\(130\)/
	}
	const found = sourceFiles(join(SRC, 'client')).flatMap((file) => {
		const name = relative(SRC, file)
		return readFileSync(file, 'utf8')
			.split('\n')
			.flatMap((line, i) =>
				/process\.(stdout|stderr|stdin|exitCode|exit\b)/.test(line) && !allowed[name]?.test(line)
					? [`${name}:${i + 1}: ${line.trim()}`]
					: []
			)
	})
	expect(found).toEqual([])
})
