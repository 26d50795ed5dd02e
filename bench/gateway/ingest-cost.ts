// How much store time a usage record costs when recorded in batches of different sizes
// (PGlite on disk, as `npm start` runs it). Usage: node bench/gateway/ingest-cost.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, migrateStore } from '../../src/store/db.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { standaloneCtx } from '../../src/domain/context.ts';
import { bootstrap } from '../../src/domain/bootstrap.ts';
import { recordUsage, type UsageRecord } from '../../src/domain/usage/record.ts';
import { newId } from '../../src/lib/ids.ts';

const dir = mkdtempSync(join(tmpdir(), 'gantry-ingest-'));
const store = await openStore(process.env.BENCH_DATABASE_URL ? { databaseUrl: process.env.BENCH_DATABASE_URL } : { dataDir: join(dir, 'pg') });
await migrateStore(store);
const ctx = standaloneCtx(store.db, systemClock);
const creds = (await bootstrap(ctx, { seedVoucherUnits: 1_000_000_000n }))!;
const rec = (): UsageRecord => ({
  requestId: newId('request'), teamId: creds.userId, memberId: creds.ownerMemberId, keyId: creds.keyId, model: 'gantry/sim-chat-small',
  endpoint: 'chat.completions', promptTokens: 20, completionTokens: 16, inputPricePerMUnits: 100n, outputPricePerMUnits: 200n,
  outcome: 'completed', durationMs: 1, atMs: Date.now(),
});
for (const size of [1, 4, 16, 64, 256, 1024]) {
  const rounds = Math.max(3, Math.ceil(2048 / size));
  await recordUsage(ctx, Array.from({ length: size }, rec)); // warm-up
  const t0 = performance.now();
  const main0 = process.threadCpuUsage();
  const all0 = process.cpuUsage();
  for (let i = 0; i < rounds; i++) await recordUsage(ctx, Array.from({ length: size }, rec));
  const ms = performance.now() - t0;
  const main = process.threadCpuUsage(main0);
  const all = process.cpuUsage(all0);
  const per = (u: { user: number; system: number }) => ((u.user + u.system) / (rounds * size)).toFixed(1);
  console.log(`batch ${String(size).padStart(5)}: ${(ms / rounds).toFixed(2)} ms per batch; CPU per record: ${per(all)} µs in all, ${per(main)} µs on the main thread`);
}
await store.close();
rmSync(dir, { recursive: true, force: true });
