/** Length in Unicode code points, as CONTRACT §1 counts names (an emoji is one character). */
export function codePointLength(text: string): number {
	let length = 0
	for (const _ of text) length++
	return length
}
