import { afterAll } from 'bun:test'
import { dropTestDatabases } from './engine'

// Preloaded (bunfig.toml), so the PostgreSQL databases of a run go when it ends, passed or failed.
afterAll(dropTestDatabases, 600_000)
