// Gantry for the benchmark. Default: as `npm start` runs it (embedded PGlite on disk,
// in-process counters). With --postgres and BENCH_DATABASE_URL (+ BENCH_REDIS_URL): a fresh
// database on that PostgreSQL server (dropped at exit) and Redis counters, the replica
// setup. With --join <database URL> instead: a second replica on the database another
// bench Gantry made (not created, migrated or dropped here; no credentials of its own).
// Log level warn, so per-request logging is not what gets measured.
// Prints {url, creds, databaseUrl} on stdout; exits when stdin closes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore, migrateStore } from '../../src/store/db.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { standaloneCtx } from '../../src/domain/context.ts';
import { bootstrap } from '../../src/domain/bootstrap.ts';
import { USAGE_PROCEDURES } from '../../src/domain/usage/procedures.ts';
import { answerCpuQueries } from './cpu-report.ts';
import { reexecWithMallocTuning } from '../../src/lib/malloc-tuning.ts';

reexecWithMallocTuning('serve'); // as src/main.ts does for `gantry serve`

const dataDir = mkdtempSync(join(tmpdir(), 'gantry-bench-'));
const adminUrl = process.argv.includes('--postgres') ? process.env.BENCH_DATABASE_URL : undefined;
const joined = process.argv.includes('--join') ? process.argv[process.argv.indexOf('--join') + 1] : undefined;
let databaseUrl: string | undefined = joined;
let dbName = '';
if (adminUrl && !joined) {
  dbName = `gantry_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${dbName}`;
  databaseUrl = u.toString();
}
const config = loadConfig({
  LOG_LEVEL: 'warn', GANTRY_DATA_DIR: dataDir,
  GANTRY_PGLITE_SHARED_BUFFERS: process.env.GANTRY_PGLITE_SHARED_BUFFERS, // as `gantry serve` reads it
  ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  ...(databaseUrl && process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL } : {}),
});
const store = await openStore(databaseUrl ? { databaseUrl } : { dataDir: join(dataDir, 'pg'), procedures: [USAGE_PROCEDURES], sharedBuffers: config.pgliteSharedBuffers });
if (!joined) await migrateStore(store);
const creds = joined ? null : await bootstrap(standaloneCtx(store.db, systemClock), { seedVoucherUnits: 0n });
const { app, services } = await buildApp({ config, store, clock: systemClock, logger: false });
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(JSON.stringify({ url, creds, databaseUrl }) + '\n');
const stop = async () => {
  process.stderr.write(`gantry usage sink (${databaseUrl ? 'postgres' : 'pglite'}): ${JSON.stringify(services.gateway.sink.stats())}\n`);
  await app.close();
  await store.close();
  if (adminUrl && !joined) {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  }
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
};
process.stdin.on('close', () => void stop());
answerCpuQueries();
process.stdin.resume();
setTimeout(() => void stop(), 600_000).unref();
