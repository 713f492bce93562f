import { beforeAll, expect, test } from 'bun:test'
import { emptyDir, serversOfThisFile, startServer, type Server, userWithKey } from '../support/harness'
import type { User } from '../support/client/machines'
import { Model } from '../support/client/model/model'
import { seedFromEnv } from '../support/client/model/random'

/**
 * The client's sync model (docs/sync-model.md) as a model-based test at the
 * process level: three machines, a team config beside a personal one of the
 * same tool, CFGSYNC_MODEL_STEPS (300) seeded random steps with commands
 * killed at random moments, every invariant checked after each step and after
 * a final settling round. The seed is always printed; CFGSYNC_MODEL_SEED
 * replays a run, and a larger CFGSYNC_MODEL_STEPS runs it longer locally.
 */

const servers = serversOfThisFile()
let server: Server
let user: User

const steps = Number(process.env.CFGSYNC_MODEL_STEPS ?? 300)
if (!Number.isInteger(steps) || steps < 1)
	throw new Error(`CFGSYNC_MODEL_STEPS must be a whole number above 0, not ${process.env.CFGSYNC_MODEL_STEPS}`)
const seed = seedFromEnv()

beforeAll(async () => {
	const dir = emptyDir()
	server = await startServer(dir)
	servers.push(server)
	user = await userWithKey(dir, 'ada', 'team')
}, 60_000)

test(
	`three machines, ${steps} random steps (seed ${seed}): no acknowledged version changes, no edit is lost unseen, the machines converge byte for byte, no stray file, no personal file in the team config`,
	async () => {
		console.log(`model test: seed ${seed}, ${steps} steps (replay with CFGSYNC_MODEL_SEED=${seed})`)
		const model = new Model(server, user, seed)
		const started = Date.now()
		try {
			await model.setUp()
			await model.run(steps)
		} finally {
			const s = model.summary(steps)
			console.log(
				`model test: seed ${s.seed}, ${Math.min(model.step, steps)} of ${steps} steps, ${s.commands} commands run, ${s.kills} killed, ${s.conflicts} conflicts, ${s.resolves} resolves, ${s.versions} versions on the server, ${((Date.now() - started) / 1000).toFixed(1)} s`
			)
		}
		expect(model.step).toBe(steps + 1)
	},
	Math.max(600_000, steps * 3_000)
)
