/**
 * A small seeded generator (mulberry32): the same seed gives the same steps,
 * so a failing run is replayed with CFGSYNC_MODEL_SEED.
 */
export class Random {
	private state: number

	constructor(readonly seed: number) {
		this.state = seed >>> 0
	}

	/** A float in [0, 1). */
	next(): number {
		this.state = (this.state + 0x6d2b79f5) >>> 0
		let t = this.state
		t = Math.imul(t ^ (t >>> 15), t | 1)
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296
	}

	/** An integer in [min, max]. */
	int(min: number, max: number): number {
		return min + Math.floor(this.next() * (max - min + 1))
	}

	chance(p: number): boolean {
		return this.next() < p
	}

	pick<T>(items: readonly T[]): T {
		if (items.length === 0) throw new Error('pick from nothing')
		return items[Math.floor(this.next() * items.length)] as T
	}

	/** One of the keys, drawn by weight. */
	weighted<K extends string>(weights: Record<K, number>): K {
		const entries = Object.entries(weights) as [K, number][]
		let roll = this.next() * entries.reduce((sum, [, w]) => sum + w, 0)
		for (const [key, weight] of entries) {
			roll -= weight
			if (roll < 0) return key
		}
		return (entries[entries.length - 1] as [K, number])[0]
	}
}

/** The seed of this run: CFGSYNC_MODEL_SEED, or a fresh one. */
export const seedFromEnv = (): number => {
	const given = process.env.CFGSYNC_MODEL_SEED
	if (given !== undefined && given !== '') {
		const seed = Number(given)
		if (!Number.isInteger(seed) || seed < 0) throw new Error(`CFGSYNC_MODEL_SEED must be a whole number, not ${given}`)
		return seed
	}
	return Math.floor(Math.random() * 2 ** 31)
}
