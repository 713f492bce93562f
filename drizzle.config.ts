import { defineConfig } from 'drizzle-kit'

// STYLE §8: migrations are generated only (`npm run db:generate -- --name <what>`); no database is needed.
export default defineConfig({
	dialect: 'sqlite',
	schema: './src/server/store/sqlite/schema.ts',
	out: './drizzle',
	strict: true
})
