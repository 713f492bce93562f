// One user's Activity page at N audit events (N=1000000 bun bench/audit-scan.ts): a user who did a tenth of
// the events, one who did the rest, and one with a single event at the very start of the log. Before the
// two-scan read (docs/performance.md) the last took 0.9 s at a million events for limit=1; docs/performance.md.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Database } from 'bun:sqlite'
import { openSqliteStore } from '../src/server/store/sqlite'
const file = join(mkdtempSync(join(tmpdir(), 'cfgsync-audit-')), 'audit.db')
const store = openSqliteStore(file)
const db = new Database(file)
const A = '00000000-0000-4000-8000-00000000000a'
const B = '00000000-0000-4000-8000-00000000000b'
db.run('BEGIN')
const ins = db.prepare(
	`insert into audit_events (id, seq, at, type, actor_user_id, actor_username, address, subject_user_id, details) values (?,?,?,?,?,?,?,?,'{}')`
)
const N = Number(process.env.N ?? 100000)
for (let i = 0; i < N; i++) {
	const ms = 1700000000000 + i * 1000
	const hex = ms.toString(16).padStart(12, '0')
	const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-${i.toString(16).padStart(12, '0')}`
	const actor = i % 10 === 0 ? A : B
	ins.run(
		id,
		i + 1,
		new Date(ms).toISOString(),
		'config.pushed',
		actor,
		actor === A ? 'a' : 'b',
		'127.0.0.1',
		i % 7 === 0 ? A : null
	)
}
db.run('COMMIT')
db.run('ANALYZE')
for (const q of [
	{ userId: A, limit: 1 },
	{ userId: A, limit: 100 },
	{ userId: B, limit: 100 }
]) {
	await store.audit.list(q as any)
	const t = performance.now()
	for (let i = 0; i < 20; i++) await store.audit.list(q as any)
	console.log(JSON.stringify(q).slice(0, 60), ((performance.now() - t) / 20).toFixed(2), 'ms')
}
const C = '00000000-0000-4000-8000-00000000000c'
db.run(
	`insert into audit_events (id, seq, at, type, actor_user_id, actor_username, address, details) values ('00000000-0000-7000-8000-000000000001', ${N + 5}, '2020-01-01T00:00:00Z', 'config.pushed', '${C}', 'c', 'x', '{}')`
)
for (const q of [
	{ userId: C, limit: 1 },
	{ userId: C, limit: 100 }
]) {
	const t = performance.now()
	for (let i = 0; i < 5; i++) await store.audit.list(q as any)
	console.log('rare', ((performance.now() - t) / 5).toFixed(2), 'ms')
}
