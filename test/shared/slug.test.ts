import { expect, test } from 'bun:test'
import { slugify } from '../../src/shared/slug'

test('slugs follow docs/api.md', () => {
	expect(slugify('Café Crème')).toBe('cafe-creme')
	expect(slugify('  Hello,   World!! ')).toBe('hello-world')
	expect(slugify('Ｆｕｌｌｗｉｄｔｈ Team')).toBe('fullwidth-team')
	expect(slugify('Øresund über straße')).toBe('resund-uber-stra-e')
	expect(slugify('日本語')).toBe('')
	expect(slugify('---')).toBe('')
	const long = slugify(`${'a'.repeat(49)} b`)
	expect(long).toBe('a'.repeat(49))
	expect(slugify('x'.repeat(80))).toHaveLength(50)
})
