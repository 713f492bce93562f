// A browser's User-Agent header as a short name a person recognises ("Chrome on Linux"): the Account page's
// list of web sessions (docs/web.md). Only the common browsers and systems are told apart; anything else is
// "Unknown browser", never the raw header.

const BROWSERS: [RegExp, string][] = [
	[/\bEdg(e|A|iOS)?\//, 'Edge'],
	[/\b(OPR|Opera)\//, 'Opera'],
	[/\b(Firefox|FxiOS)\//, 'Firefox'],
	[/\bSamsungBrowser\//, 'Samsung Internet'],
	[/\b(HeadlessChrome|Chrome|Chromium|CriOS)\//, 'Chrome'],
	[/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
	[/^curl\//, 'curl']
]

const SYSTEMS: [RegExp, string][] = [
	[/\b(iPhone|iPad|iPod)\b/, 'iOS'],
	[/\bAndroid\b/, 'Android'],
	[/\bCrOS\b/, 'ChromeOS'],
	[/\bWindows\b/, 'Windows'],
	[/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
	[/\bLinux\b|\bX11\b/, 'Linux']
]

/** "Chrome on Linux", "Firefox", "Unknown browser on Windows": what a session's user agent names. */
export function browserName(userAgent: string): string {
	const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1]
	const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1]
	if (browser === undefined) return system === undefined ? 'Unknown browser' : `Unknown browser on ${system}`
	return system === undefined ? browser : `${browser} on ${system}`
}
