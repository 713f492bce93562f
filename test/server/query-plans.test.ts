import { Database } from 'bun:sqlite'
import { afterAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { purgeDeletedTeams } from '../../src/server/jobs/purge'
import { silentLogger } from '../../src/server/lib/log'
import { openSqliteStore } from '../../src/server/store/sqlite'
import { buildWorld } from '../support/world'
import { tempDir } from '../support/temp'

/**
 * Every statement the store prepares, explained: none may scan a table, so a
 * later change cannot silently lose an index. Statements are recorded while a
 * world exercising every endpoint is built, so lazily built queries count too.
 */
const recorded = new Set<string>()
const originalPrepare = Database.prototype.prepare
const originalQuery = Database.prototype.query
Database.prototype.prepare = function (this: Database, sql: string, ...rest: unknown[]) {
	recorded.add(sql)
	return (originalPrepare as (...args: unknown[]) => unknown).call(this, sql, ...rest)
} as typeof Database.prototype.prepare
Database.prototype.query = function (this: Database, sql: string) {
	recorded.add(sql)
	return originalQuery.call(this, sql)
} as typeof Database.prototype.query
afterAll(() => {
	Database.prototype.prepare = originalPrepare
	Database.prototype.query = originalQuery
})

/** Scans that are fine: admin commands and jobs over whole tables, never on a request path. */
const ALLOWED_SCANS: { why: string; match: RegExp }[] = [
	{
		why: 'cfgsync-server user list lists every user',
		match: /^select .* from "users" order by "users"\."created_at"/i
	},
	{
		why: 'the hourly prune drops old failed logins',
		match: /^delete from "login_failures" where "login_failures"\."at" < \?/i
	},
	{ why: 'the migration runner reads its own bookkeeping table', match: /__drizzle_migrations/ },
	{ why: 'the schema probe before migrating', match: /sqlite_master/ },
	{
		why: 'the admin page sorts the users by when they joined (a page of them; their figures are read by index)',
		match:
			/^select "id", "email", .* from "users"( where .*)? order by "users"\."created_at" asc, "users"\."id" asc limit \?( offset \?)?$/i
	},
	{
		why: 'metrics count whole tables when scraped',
		match: /^SELECT count\(\*\) AS n FROM (users|configs|config_versions)$/
	},
	{
		why: 'the hourly prune drops ended sessions, spent slug reservations and expired invitations (small tables)',
		match: /^delete from "(sessions|team_slug_reservations|team_invitations)" where/i
	},
	{ why: 'metrics read the database size from pragma tables', match: /pragma_page_count\(\), pragma_page_size\(\)/ },
	{
		why: "the start asks whether a table has a column (the schema's own description)",
		match: /FROM pragma_table_info\(/
	},
	{
		why: 'key rotation walks every version',
		match: /^select "id", "config_id", "data" from "config_versions" where "config_versions"\."id" > \?/i
	},
	{
		why: 'readiness reads the newest version: the primary key walked backwards, stopping at its first row',
		match: /^select "id", "config_id", "data" from "config_versions" order by "config_versions"\."id" desc limit \?$/i
	},
	{ why: "a rotation's roll call reads the few running servers", match: /from "server_instances"/i }
]

test('no request-path statement scans a table (EXPLAIN QUERY PLAN)', async () => {
	const file = join(tempDir('plans'), 'plans.db')
	// SQLite's query plans; PostgreSQL plans by statistics, and its indexes are the same (schema-parity.test.ts).
	const store = openSqliteStore(file)
	const world = await buildWorld({ store })
	// Touch the remaining store paths: admin and job queries, removals.
	await store.users.list()
	await store.users.soleOwnerTeams(world.users.tom.id)
	await world.t.call('DELETE', `/api/teams/${world.team.slug}`, { key: world.keys.tom })
	// Steps of 2 rows: whole configs of one version, and a config's old versions a step at a time.
	await purgeDeletedTeams({ store, clock: { now: () => Date.now() + 40 * 86_400_000 }, logger: silentLogger, batch: 2 })
	await store.loginFailures.prune(0)
	// The audit log's reads and retention, sessions, invitations, jobs, metrics, key rotation.
	await store.audit.list({ userId: world.users.tom.id, limit: 50 })
	await store.audit.list({
		userId: world.users.tom.id,
		type: 'config.pushed',
		before: 'ffffffff-ffff-7fff-bfff-ffffffffffff',
		limit: 50
	})
	await store.audit.list({ teamId: world.team.id, limit: 50 })
	// The web's Activity pages: searched, and paged towards newer events.
	await store.audit.list({ userId: world.users.tom.id, search: 'a_b%', limit: 51 })
	await store.audit.list({ teamId: world.team.id, after: '00000000-0000-7000-8000-000000000000', limit: 51 })
	// The Configs page: a page of the configs a user sees, searched or not.
	await store.configs.listVisible(world.users.tom.id, { offset: 0, limit: 51 })
	await store.configs.listVisible(world.users.tom.id, { search: 'de', offset: 50, limit: 51 })
	await store.users.listWithActivity({ search: 'to', offset: 0, limit: 51 })
	await store.audit.prune(new Date().toISOString())
	await store.sessions.find('x'.repeat(64), new Date().toISOString(), new Date(0).toISOString())
	await store.sessions.prune(new Date().toISOString(), new Date(0).toISOString())
	await store.teams.invitationsForUser(world.users.ivy.id, new Date().toISOString())
	await store.teams.pruneReservationsAndInvitations(new Date().toISOString(), new Date().toISOString())
	await store.jobs.claim('purge', Date.now())
	// Quotas (docs/operations.md): an owner's stored bytes and a user's recent pushes.
	await store.configs.storedBytes({ userId: world.users.tom.id, teamId: null })
	await store.configs.storedBytes({ userId: world.users.tom.id, teamId: world.team.id })
	await store.configs.nthPushSince(world.users.tom.id, '00000000-0000-7000-8000-000000000000', 120)
	await store.users.listWithActivity()
	await store.stats()
	await store.configs.sealedPage(null, 10)
	await store.configs.newestSealed()
	await store.instances.report({ id: 'i', keyId: 'k', seenAt: Date.now() })
	await store.instances.seenSince(0)
	await store.instances.forget('i')
	await store.meta.delete('none')
	await store.users.remove(world.users.fred.id)
	await world.t.call('DELETE', `/api/configs/${world.P.id}`, { key: world.keys.alice })

	const db = new Database(file, { readonly: true })
	const explained: string[] = []
	const scans: string[] = []
	for (const sql of recorded) {
		if (!/^\s*(select|update|delete|insert)/i.test(sql)) continue
		const plan = db.query<{ detail: string }, []>(`EXPLAIN QUERY PLAN ${sql}`).all()
		explained.push(sql)
		for (const { detail } of plan) {
			// "SCAN x USING COVERING INDEX" still reads the whole index: also a scan.
			if (
				/^SCAN /.test(detail) &&
				!/^SCAN CONSTANT ROW/.test(detail) &&
				// A subquery's own rows (bounded by its LIMIT), not a table.
				!/^SCAN \(subquery-\d+\)/.test(detail) &&
				!ALLOWED_SCANS.some((allowed) => allowed.match.test(sql))
			) {
				scans.push(`${detail}\n    in: ${sql}`)
			}
		}
	}
	db.close()
	store.close()
	expect(explained.length).toBeGreaterThan(30)
	expect(scans).toEqual([])
})
