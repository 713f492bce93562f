import { afterAll, beforeEach } from 'bun:test'
import { dropTestDatabases, testStarting } from './engine'

// Preloaded (bunfig.toml): the PostgreSQL stores a test opens are closed when it ends, and the
// databases of a run go when it ends, passed or failed (and the run fails if it held too many connections).
beforeEach(testStarting)
afterAll(dropTestDatabases, 600_000)
