import { BlockList, isIP } from 'node:net'

/**
 * docs/api.md: who a request comes from, for login throttling, the audit log
 * and the security log. `X-Forwarded-For` is believed only when the socket
 * peer is a trusted proxy, and then the right-most address that is not itself
 * a trusted proxy is the client (every hop to its left was written by whoever
 * sent the request, so none of them can be believed).
 */
export interface TrustedProxies {
	/** True when `address` is one of the trusted proxies. */
	has(address: string): boolean
	readonly empty: boolean
}

/** Parses a comma-separated CIDR list (`10.0.0.0/8, 192.168.1.7, fd00::/8`); throws naming the bad entry. */
export function parseTrustedProxies(list: string): TrustedProxies {
	const blocks = new BlockList()
	let count = 0
	for (const raw of list.split(',')) {
		const entry = raw.trim()
		if (entry === '') continue
		const [network = '', prefixText, ...rest] = entry.split('/')
		const family = isIP(network)
		const max = family === 4 ? 32 : 128
		const prefix = prefixText === undefined ? max : Number(prefixText)
		if (
			family === 0 ||
			rest.length > 0 ||
			!Number.isInteger(prefix) ||
			prefix < 0 ||
			prefix > max ||
			prefixText === ''
		) {
			throw new Error(`"${entry}" is not an IP address or CIDR range (such as 10.0.0.0/8 or fd00::/8)`)
		}
		blocks.addSubnet(network, prefix, family === 4 ? 'ipv4' : 'ipv6')
		count++
	}
	return {
		empty: count === 0,
		has(address) {
			const family = isIP(address)
			if (family === 0 || count === 0) return false
			return blocks.check(address, family === 4 ? 'ipv4' : 'ipv6')
		}
	}
}

export const noTrustedProxies: TrustedProxies = { empty: true, has: () => false }

/** Trust exactly the socket peer of each request (the deprecated CFGSYNC_TRUST_PROXY=1). */
export const trustEveryPeer: TrustedProxies = { empty: false, has: () => true }

/** The client of a request: the socket peer, or the right-most untrusted X-Forwarded-For hop behind trusted proxies. */
export function clientAddress(peer: string, forwardedFor: string | null, trusted: TrustedProxies): string {
	if (forwardedFor === null || trusted.empty || !trusted.has(peer)) return peer
	const hops = forwardedFor.split(',').map((hop) => stripPort(hop.trim()))
	for (let i = hops.length - 1; i >= 0; i--) {
		const hop = hops[i] as string
		// A hop that is no address means the chain is not what our proxies write: fall back to the peer.
		if (isIP(hop) === 0) return peer
		if (trusted === trustEveryPeer || !trusted.has(hop)) return hop
	}
	// Every hop is a trusted proxy: the left-most is the closest we know to the client.
	return hops[0] || peer
}

/**
 * docs/api.md: the origin people reach this server at, for pages that print an
 * absolute URL. CFGSYNC_PUBLIC_URL when it is set; otherwise the request's
 * own scheme and Host, with X-Forwarded-Proto and X-Forwarded-Host believed
 * only from a trusted proxy (anyone else can write them, and a cache in front
 * could then serve a forged install command to everyone).
 */
export function publicOrigin(request: Request, peer: string, trusted: TrustedProxies, publicUrl?: string): string {
	if (publicUrl !== undefined) return publicUrl
	const url = new URL(request.url)
	let scheme = url.protocol.slice(0, -1)
	let host = hostOf(scheme, request.headers.get('host')) ?? url.host
	if (!trusted.empty && trusted.has(peer)) {
		const proto = firstValue(request.headers.get('x-forwarded-proto'))?.toLowerCase()
		if (proto === 'https' || proto === 'http') scheme = proto
		host = hostOf(scheme, firstValue(request.headers.get('x-forwarded-host'))) ?? host
	}
	return `${scheme}://${host}`
}

/** A Host-style value (`name[:port]`) as a URL parser normalises it, or undefined when it is not one. */
function hostOf(scheme: string, value: string | null | undefined): string | undefined {
	if (!value) return undefined
	const parsed = URL.parse(`${scheme}://${value}/`)
	return parsed !== null &&
		parsed.pathname === '/' &&
		parsed.username === '' &&
		parsed.password === '' &&
		parsed.search === ''
		? parsed.host
		: undefined
}

/** The first of a comma-separated header's values (proxies append theirs), trimmed. */
const firstValue = (header: string | null): string | undefined => header?.split(',')[0]?.trim() || undefined

/** `[::1]:443` → `::1`, `1.2.3.4:80` → `1.2.3.4`; anything else as it is. */
function stripPort(hop: string): string {
	if (hop.startsWith('[')) {
		const end = hop.indexOf(']')
		return end === -1 ? hop : hop.slice(1, end)
	}
	const colon = hop.indexOf(':')
	return colon !== -1 && colon === hop.lastIndexOf(':') ? hop.slice(0, colon) : hop
}

/**
 * The unit throttling counts by: an IPv4 address as it is, an IPv6 address by
 * its /64 (one subscriber's whole network, which they can rotate through
 * freely), an IPv4-mapped IPv6 address as the IPv4 address it carries.
 */
export function throttleKey(address: string): string {
	if (isIP(address) !== 6) return address
	const groups = expandIpv6(address)
	if (groups === undefined) return address
	if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
		const [high = 0, low = 0] = groups.slice(6)
		return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`
	}
	return `${groups
		.slice(0, 4)
		.map((g) => g.toString(16))
		.join(':')}::/64`
}

/** Eight 16-bit groups of an IPv6 address (`::` and a trailing dotted IPv4 part expanded). */
function expandIpv6(address: string): number[] | undefined {
	let text = address.split('%')[0] as string
	const dotted = text.match(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/)
	if (dotted) {
		const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number]
		text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
	}
	const [headText = '', restText, ...extra] = text.split('::')
	if (extra.length > 0) return undefined
	const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)))
	const head = parse(headText)
	const rest = restText === undefined ? [] : parse(restText)
	const missing = 8 - head.length - rest.length
	if (missing < 0 || (restText === undefined && missing !== 0)) return undefined
	const groups = [...head, ...Array<number>(missing).fill(0), ...rest]
	return groups.some((g) => Number.isNaN(g)) ? undefined : groups
}
