// docs/web.md: light and dark follow the system, and the dark scheme changes colours and nothing else.
// The browser tests rely on it: a page is checked by every axe rule in the light scheme and, switched to
// dark in place, by the colour rules only (test/server/browser/axe.browser.test.ts); a dark block that
// hid, moved or resized anything would need every rule again.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'

const CSS = readFileSync(resolve(import.meta.dir, '../../../src/server/web/assets/app.css'), 'utf8')

/** Each `@media (…prefers-color-scheme…)` block's body, found by matching braces. */
function colourSchemeBlocks(css: string): string[] {
	const blocks: string[] = []
	const start = /@media[^{]*prefers-color-scheme[^{]*\{/g
	for (let match = start.exec(css); match; match = start.exec(css)) {
		let depth = 1
		let at = start.lastIndex
		while (depth > 0 && at < css.length) {
			if (css[at] === '{') depth++
			else if (css[at] === '}') depth--
			at++
		}
		blocks.push(css.slice(start.lastIndex, at - 1))
	}
	return blocks
}

/** The declarations of a block's rules: `selector → property` pairs. */
function declarations(block: string): { selector: string; property: string }[] {
	const found: { selector: string; property: string }[] = []
	for (const rule of block.matchAll(/([^{}]+)\{([^{}]*)\}/g)) {
		const selector = (rule[1] as string).replace(/\/\*[\s\S]*?\*\//g, '').trim()
		for (const declaration of (rule[2] as string).split(';')) {
			const property = declaration
				.replace(/\/\*[\s\S]*?\*\//g, '')
				.split(':')[0]
				?.trim()
			if (property) found.push({ selector, property })
		}
	}
	return found
}

describe('the stylesheet', () => {
	test('the dark scheme only sets colour variables on :root, so it changes colours and nothing else', () => {
		const blocks = colourSchemeBlocks(CSS)
		expect(blocks.length).toBeGreaterThan(0)
		const set = blocks.flatMap(declarations)
		expect(set.length).toBeGreaterThan(0)
		const notColours = set.filter(
			({ selector, property }) =>
				selector !== ':root' ||
				!property.startsWith('--') ||
				// Sizes, spacing and fonts are variables too: their names would say so.
				/radius|width|height|size|space|gap|font|pad|margin/.test(property)
		)
		expect(notColours).toEqual([])
	})

	test('the check sees a dark block that hides something', () => {
		const broken = `${CSS}\n@media (prefers-color-scheme: dark) { .notice { display: none } }\n`
		const set = colourSchemeBlocks(broken).flatMap(declarations)
		expect(set).toContainEqual({ selector: '.notice', property: 'display' })
	})
})
