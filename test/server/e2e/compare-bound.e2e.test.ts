// docs/web.md: a comparison is decided by size and its cost is bounded. Two versions of 8,000 unique lines
// (16,000 edits, which took 36 s of CPU unbounded) through the compiled binary: the Compare page answers
// within 3 s, saying they are too large to compare here, and /healthz keeps answering meanwhile. And 24
// comparisons of 8,000 lines at once, each within the limits: /healthz stays under 500 ms (p99; 2.6 s before), each page
// is the diff (always the same one) or a 503 with Retry-After, never "too large".
import { expect, test } from 'bun:test'
import { api, emptyDir, serversOfThisFile, startServer, userWithKey } from '../../support/harness'

const servers = serversOfThisFile()

const uniqueLines = (count: number, seed: string) =>
	Array.from({ length: count }, (_, i) => `${seed}-${i}-${((i * 2654435761) % 4294967296).toString(16)}`).join('\n')

test('an 8,000-line comparison answers within 3 s with "too large to compare here"; /healthz answers within 1 s meanwhile', async () => {
	const dir = emptyDir()
	const server = await startServer(dir)
	servers.push(server)
	const alice = await userWithKey(dir, 'alice', 'pro')
	const push = (seed: string) =>
		api(server, 'POST', '/api/configs', alice.key, {
			tool: 'claude-code',
			name: 'big',
			data: { files: { 'big.txt': `${uniqueLines(8000, seed)}\n` } }
		})
	const first = await push('old')
	expect(first.status).toBe(201)
	expect((await push('new')).status).toBe(200)
	const versions = (await api(server, 'GET', `/api/configs/${first.body.id}/versions`, alice.key)).body as {
		id: string
		version: number
	}[]
	const from = versions.find((v) => v.version === 1)?.id
	const to = versions.find((v) => v.version === 2)?.id

	// Signed in on the web, as a person would be.
	const signIn = await fetch(`${server.url}/sign-in`, {
		method: 'POST',
		redirect: 'manual',
		headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', origin: 'null' },
		body: new URLSearchParams({ login: 'alice', password: alice.password })
	})
	expect(signIn.status).toBe(303)
	const cookie = /cfgsync_session=[^;]+/.exec(signIn.headers.get('set-cookie') ?? '')?.[0] as string

	const path = `/configs/${first.body.id}/compare?from=${from}&to=${to}`
	const health: number[] = []
	let comparing = true
	const probe = (async () => {
		while (comparing) {
			const started = performance.now()
			const answer = await fetch(`${server.url}/healthz`)
			await answer.arrayBuffer()
			health.push(performance.now() - started)
			await Bun.sleep(20)
		}
	})()
	// A few at once, as several people (or one impatient one) would ask.
	const started = performance.now()
	const pages = await Promise.all(
		Array.from({ length: 3 }, async () => {
			const response = await fetch(`${server.url}${path}`, { headers: { cookie } })
			return { status: response.status, html: await response.text(), ms: performance.now() - started }
		})
	)
	comparing = false
	await probe
	for (const page of pages) {
		expect(page.status).toBe(200)
		expect(page.html).toContain('too large to compare here')
		expect(page.html).toContain(`/configs/${first.body.id}/versions/${from}/download`)
		expect(page.ms).toBeLessThan(3000)
	}
	expect(health.length).toBeGreaterThan(0)
	expect(Math.max(...health)).toBeLessThan(1000)

	// Each version downloads whole.
	const download = await fetch(`${server.url}/configs/${first.body.id}/versions/${to}/download`, {
		headers: { cookie }
	})
	expect(download.status).toBe(200)
	expect(download.headers.get('cache-control')).toBe('no-store')
	expect(((await download.json()) as { files: Record<string, string> }).files['big.txt']).toStartWith('new-0-')
}, 60_000)

const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.99)] ?? 0

test('24 comparisons of 8,000 lines at once: /healthz p99 under 500 ms; each is the same diff, or 503 with Retry-After', async () => {
	const dir = emptyDir()
	const server = await startServer(dir)
	servers.push(server)
	const alice = await userWithKey(dir, 'alice', 'pro')
	// 8,000 lines, every fourth changed: 4,000 edits scattered over the file, within the limits.
	const lines = Array.from({ length: 8000 }, (_, i) => `setting.${i} = ${(i * 2654435761) % 4294967296}`)
	const changed = lines.map((line, i) => (i % 4 === 0 ? `${line} # changed` : line))
	const push = (text: string[]) =>
		api(server, 'POST', '/api/configs', alice.key, {
			tool: 'claude-code',
			name: 'wide',
			data: { files: { 'wide.txt': `${text.join('\n')}\n` } }
		})
	const first = await push(lines)
	expect(first.status).toBe(201)
	expect((await push(changed)).status).toBe(200)
	const versions = (await api(server, 'GET', `/api/configs/${first.body.id}/versions`, alice.key)).body as {
		id: string
		version: number
	}[]
	const path = `/configs/${first.body.id}/compare?from=${versions.find((v) => v.version === 1)?.id}&to=${versions.find((v) => v.version === 2)?.id}`
	const signIn = await fetch(`${server.url}/sign-in`, {
		method: 'POST',
		redirect: 'manual',
		headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', origin: 'null' },
		body: new URLSearchParams({ login: 'alice', password: alice.password })
	})
	const cookie = /cfgsync_session=[^;]+/.exec(signIn.headers.get('set-cookie') ?? '')?.[0] as string

	const health: number[] = []
	let comparing = true
	const probe = (async () => {
		while (comparing) {
			const started = performance.now()
			await (await fetch(`${server.url}/healthz`)).arrayBuffer()
			health.push(performance.now() - started)
			await Bun.sleep(20)
		}
	})()
	const pages = await Promise.all(
		Array.from({ length: 24 }, async () => {
			const response = await fetch(`${server.url}${path}`, { headers: { cookie } })
			return { status: response.status, retryAfter: response.headers.get('retry-after'), html: await response.text() }
		})
	)
	comparing = false
	await probe
	const shown = pages.filter((page) => page.status === 200)
	const refused = pages.filter((page) => page.status === 503)
	console.log(
		`[compare] 24 at once: ${shown.length} shown, ${refused.length} refused (503); /healthz p99 ${Math.round(p99(health))} ms, max ${Math.round(Math.max(...health))} ms over ${health.length}`
	)
	expect(shown.length + refused.length).toBe(24)
	expect(shown.length).toBeGreaterThan(0)
	for (const page of shown) {
		expect(page.html).not.toContain('too large to compare here')
		expect(page.html).toContain('+2000 −2000')
	}
	for (const page of refused) expect(Number(page.retryAfter)).toBeGreaterThan(0)
	// Before the limit, /healthz waited 2.6-2.8 s behind these comparisons; with one per core it is
	// answered between them. The bound leaves room for a CI machine's own load (a run alone measured
	// 89-227 ms on two loaded cores); the figures are printed above.
	expect(p99(health)).toBeLessThan(500)
}, 120_000)
