import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  // every schema file: the shared tables (schema.ts) and each area's (schema-<area>.ts)
  schema: './src/store/schema*.ts',
  out: './migrations',
});
