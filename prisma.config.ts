// Configuration of the Prisma CLI. The server itself never reads this file: it applies the SQL
// migrations with its own runner (src/db/migrate.ts) and connects through @prisma/adapter-pg.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'schema.prisma',
  migrations: { path: 'migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/postgres' },
});
