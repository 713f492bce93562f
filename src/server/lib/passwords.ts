import { hash, verify } from '@node-rs/argon2'

/** `Algorithm.Argon2id`; the package declares it as a const enum, which verbatimModuleSyntax cannot import. */
const ARGON2ID = 2

export interface PasswordHasher {
	hash(password: string): Promise<string>
	verify(passwordHash: string, password: string): Promise<boolean>
}

/** Argon2id cost; the defaults are OWASP's minimum (19 MiB, 2 passes). Tests pass cheaper ones. */
export interface Argon2Cost {
	memoryCost: number
	timeCost: number
}

export const DEFAULT_ARGON2_COST: Argon2Cost = { memoryCost: 19_456, timeCost: 2 }

/** docs/api.md: passwords are hashed with Argon2id; the hash string carries its own parameters. */
export function createPasswordHasher(cost: Argon2Cost = DEFAULT_ARGON2_COST): PasswordHasher {
	const options = { algorithm: ARGON2ID, memoryCost: cost.memoryCost, timeCost: cost.timeCost, parallelism: 1 }
	return {
		hash: (password) => hash(password, options),
		async verify(passwordHash, password) {
			try {
				return await verify(passwordHash, password)
			} catch {
				return false
			}
		}
	}
}
