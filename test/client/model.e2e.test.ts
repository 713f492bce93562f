import { beforeAll, expect, test } from 'bun:test'
import { emptyDir, serversOfThisFile, startServer, type Server, userWithKey } from '../support/harness'
import type { User } from '../support/client/machines'
import { Model } from '../support/client/model/model'
import { seedFromEnv } from '../support/client/model/random'

/**
 * The client's sync model (docs/sync-model.md) as a model-based test at the
 * process level: three machines — two of a team's owner, one of a plain
 * member — with a team config that holds a file both personal configs list,
 * CFGSYNC_MODEL_STEPS (300) seeded random steps with commands killed at random
 * moments, every invariant checked after each step and after a final settling
 * round. The seed is always printed; CFGSYNC_MODEL_SEED replays a run, and a
 * larger CFGSYNC_MODEL_STEPS runs it longer locally.
 */

const servers = serversOfThisFile()
let server: Server
let users: { ada: User; ben: User }

const steps = Number(process.env.CFGSYNC_MODEL_STEPS ?? 300)
if (!Number.isInteger(steps) || steps < 1)
	throw new Error(`CFGSYNC_MODEL_STEPS must be a whole number above 0, not ${process.env.CFGSYNC_MODEL_STEPS}`)
const seed = seedFromEnv()

beforeAll(async () => {
	const dir = emptyDir()
	server = await startServer(dir)
	servers.push(server)
	const [ada, ben] = await Promise.all([userWithKey(dir, 'ada', 'team'), userWithKey(dir, 'ben', 'pro')])
	users = { ada: ada as User, ben: ben as User }
}, 60_000)

test(
	`three machines (an owner's two, a member's one), ${steps} random steps (seed ${seed}): no acknowledged version changes, no edit is lost but by choice, settling keeps every change that did not clash, the machines converge byte for byte, no stray file, no personal file in the team config, a member's changes stay local, no unreviewed change is written, a machine's own keys and formatting stay its own`,
	async () => {
		console.log(`model test: seed ${seed}, ${steps} steps (replay with CFGSYNC_MODEL_SEED=${seed})`)
		const model = new Model(server, users, seed)
		const started = Date.now()
		try {
			await model.setUp()
			await model.run(steps)
		} finally {
			const s = model.summary(steps)
			console.log(
				`model test: seed ${s.seed}, ${Math.min(model.step, steps)} of ${steps} steps, ${s.commands} commands run, ${s.kills} killed, ${s.conflicts} conflicts, ${s.resolves} resolves, ${s.held} runs that held files for review, ${s.refusedMemberPushes} member pushes refused, ${s.versions} versions on the server, ${((Date.now() - started) / 1000).toFixed(1)} s`
			)
		}
		expect(model.step).toBe(steps + 1)
	},
	Math.max(600_000, steps * 3_000)
)
