import { describe, expect, test } from 'bun:test'
import { parseEntityTags, pathOf, strongTags, weakTags } from '../../../src/server/lib/http'

describe('request helpers', () => {
	test('pathOf ignores query and fragment', () => {
		expect(pathOf('http://localhost/api/configs?x=1')).toBe('/api/configs')
		expect(pathOf('http://h:8787/healthz#a')).toBe('/healthz')
		expect(pathOf('http://h')).toBe('/')
	})

	test('entity tag lists as RFC 9110 writes them', () => {
		expect(parseEntityTags('*')).toBe('*')
		expect(parseEntityTags('"abc"')).toEqual(['abc'])
		expect(parseEntityTags('"a", W/"b" ,"c"')).toEqual(['a', 'W/b', 'c'])
		expect(parseEntityTags('abc')).toEqual(['abc'])
		expect(parseEntityTags(null)).toBeUndefined()
		expect(strongTags(['a', 'W/b'])).toEqual(['a'])
		expect(weakTags(['a', 'W/b'])).toEqual(['a', 'b'])
	})
})
