import { defineConfig } from 'drizzle-kit'

// The PostgreSQL twin of drizzle.config.ts (CONTRACT §9): `npm run db:generate:postgres -- --name <what>`; no database is needed.
export default defineConfig({
	dialect: 'postgresql',
	schema: './src/server/store/postgres/schema.ts',
	out: './drizzle-postgres',
	strict: true
})
