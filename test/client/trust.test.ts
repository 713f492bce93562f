import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { installedPaths, type Paths, usePaths } from '../../src/client/paths'
import { isTrusted, setTrusted, trustedDevices, UNKNOWN_DEVICE } from '../../src/client/trust'
import { pathsIn } from '../support/client/home'
import { tempDir } from '../support/temp'

/** Device trust goes by the key a device had when it was trusted (docs/sync-model.md); its name alone can be taken. */
describe('device trust', () => {
	const own = { device: 'laptop', keyId: 'k-own' }
	const trusted = [{ device: 'desk', key: 'k-desk' }, { device: 'web' }]

	test('a version by a trusted key, or this machine’s own, is trusted; the same name on another key is not', () => {
		expect(isTrusted({ device: 'desk', keyId: 'k-desk' }, trusted, own)).toBe(true)
		expect(isTrusted({ device: 'laptop', keyId: 'k-own' }, trusted, own)).toBe(true)
		expect(isTrusted({ device: 'desk', keyId: 'k-taken' }, trusted, own)).toBe(false)
		expect(isTrusted({ device: 'laptop', keyId: 'k-taken' }, trusted, own)).toBe(false)
		// A trusted key renamed since still is that key.
		expect(isTrusted({ device: 'desk-renamed', keyId: 'k-desk' }, trusted, own)).toBe(true)
	})

	test('without a key id (the web application, or an event older than key ids) the name decides; an unknown device never is', () => {
		expect(isTrusted({ device: 'web', keyId: null }, trusted, own)).toBe(true)
		expect(isTrusted({ device: 'desk', keyId: null }, trusted, own)).toBe(true)
		expect(isTrusted({ device: 'ci', keyId: null }, trusted, own)).toBe(false)
		expect(isTrusted({ device: UNKNOWN_DEVICE, keyId: null }, [{ device: UNKNOWN_DEVICE }], own)).toBe(false)
	})

	const xdg = tempDir('cfgsync-trust-')
	let before: Paths | undefined
	beforeAll(() => {
		before = installedPaths()
		usePaths(pathsIn(tempDir('cfgsync-trust-home-'), { XDG_CONFIG_HOME: xdg }))
	})
	afterAll(() => {
		usePaths(before)
	})

	test('trust an older cfgsync gave by name only still reads, and never matches a version by a key', () => {
		mkdirSync(join(xdg, 'cfgsync'), { recursive: true })
		writeFileSync(
			join(xdg, 'cfgsync', 'trusted-devices.json'),
			JSON.stringify({ format: 1, trusted: { 'https://s ada': ['desk'] } })
		)
		const read = trustedDevices('https://s', 'ada')
		expect(read).toEqual([{ device: 'desk' }])
		expect(isTrusted({ device: 'desk', keyId: 'k-any' }, read, own)).toBe(false)
		// Trusting it again pins its key; one entry per name.
		expect(setTrusted('https://s', 'ada', { device: 'desk', key: 'k-desk' }, true)).toBe(true)
		expect(setTrusted('https://s', 'ada', { device: 'desk', key: 'k-desk' }, true)).toBe(false)
		expect(trustedDevices('https://s', 'ada')).toEqual([{ device: 'desk', key: 'k-desk' }])
		expect(JSON.parse(readFileSync(join(xdg, 'cfgsync', 'trusted-devices.json'), 'utf8')).format).toBe(2)
		expect(setTrusted('https://s', 'ada', { device: 'desk' }, false)).toBe(true)
		expect(trustedDevices('https://s', 'ada')).toEqual([])
	})
})
