// The Account page names each web session by its browser (docs/web.md): a short name, never the raw header.
import { expect, test } from 'bun:test'
import { browserName } from '../../../src/server/lib/user-agent'

test('common browsers and systems get short names; anything else is "Unknown browser"', () => {
	const cases: [string, string][] = [
		[
			'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
			'Chrome on Linux'
		],
		[
			'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36',
			'Chrome on Linux'
		],
		[
			'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
			'Edge on Windows'
		],
		['Mozilla/5.0 (Macintosh; Intel Mac OS X 14.7; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox on macOS'],
		[
			'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
			'Safari on macOS'
		],
		[
			'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1',
			'Chrome on iOS'
		],
		[
			'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
			'Chrome on Android'
		],
		['curl/8.5.0', 'curl'],
		['', 'Unknown browser'],
		['<script>alert(1)</script> (Windows NT 10.0)', 'Unknown browser on Windows']
	]
	for (const [userAgent, name] of cases)
		expect({ userAgent, name: browserName(userAgent) }).toEqual({ userAgent, name })
})
