/** docs/api.md: team slug rule. */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/
export const SLUG_MAX = 50

/**
 * docs/api.md: NFKD, diacritics dropped, lower-cased, every run of other
 * characters becomes one `-`, dashes trimmed, cut to 50. Empty when the name
 * has nothing slug-worthy (the caller answers 400).
 */
export function slugify(name: string): string {
	const slug = name
		.normalize('NFKD')
		.replace(/\p{M}+/gu, '')
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, '-')
		.replace(/^-+|-+$/g, '')
	return slug.slice(0, SLUG_MAX).replace(/-+$/, '')
}
