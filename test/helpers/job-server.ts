// A Gantry server (as `gantry serve` builds it) with one more job type, `test.crash`, for the
// kill -9 tests of the job runner (src/jobs/crash.process.test.ts). Started by startServer({ entry }).
// Its handler says on stdout when it starts, waits until the file JOB_RELEASE_FILE exists,
// then completes with one effect (a counter in `settings`) in the completion's transaction.
// JOB_ENQUEUE=<tag> queues one job at start; JOB_LEASE_MS sets the type's lease.
import { existsSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { Type } from 'typebox';
import { loadConfig } from '../../src/config.ts';
import { openStore, migrateStore } from '../../src/store/db.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { standaloneCtx } from '../../src/domain/context.ts';
import { bootstrap } from '../../src/domain/bootstrap.ts';
import { USAGE_PROCEDURES } from '../../src/domain/usage/procedures.ts';
import { buildApp } from '../../src/app.ts';
import { defineJob } from '../../src/domain/jobs/job-type.ts';

export const CRASH_JOB = defineJob({
  name: 'test.crash', payload: Type.Object({ tag: Type.String() }), concurrency: 1,
  leaseMs: Number(process.env.JOB_LEASE_MS ?? 60_000),
  retry: { maxAttempts: 5, backoff: { firstMs: 100, factor: 1, maxMs: 100 } },
});

const env = process.env;
const config = loadConfig(env);
const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, sharedBuffers: config.pgliteSharedBuffers, procedures: [USAGE_PROCEDURES] });
await migrateStore(store);
await bootstrap(standaloneCtx(store.db, systemClock), { seedVoucherUnits: config.seedVoucherUnits });
const release = env.JOB_RELEASE_FILE!;
const { app, services } = await buildApp({
  config, store, clock: systemClock,
  registerJobs: (jobs) => jobs.register(CRASH_JOB, async (job) => {
    process.stdout.write(`job ${job.id} attempt ${job.attempt} started\n`);
    while (!existsSync(release)) await delay(10);
    await job.completeWith(async (tx) => {
      await tx.execute(sql`insert into settings (key, value) values (${`effect:${job.id}`}, '1'::jsonb)
        on conflict (key) do update set value = to_jsonb(settings.value::text::int + 1)`);
    });
    process.stdout.write(`job ${job.id} done\n`);
  }),
});
if (env.JOB_ENQUEUE) {
  const { id } = await services.jobs.enqueue(CRASH_JOB, { tag: env.JOB_ENQUEUE });
  process.stdout.write(`job ${id} enqueued\n`);
}
process.once('SIGTERM', () => void app.close().then(() => store.close()).then(() => process.exit(0)));
const address = await app.listen({ host: config.host, port: config.port });
process.stdout.write(`Gantry listening on ${address}\n`);
