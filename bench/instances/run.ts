// Lists and gets over 100,000 instances of one team, through the HTTP surface (app.inject),
// on embedded PGlite and, with BENCH_DATABASE_URL, on PostgreSQL. Prints p50/p99 per case.
//   node bench/instances/run.ts [--count 100000] [--iterations 200]
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/instances/run.ts
// On PostgreSQL it creates its own database (gantry_bench_instances_<random>) and drops it after.
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore, migrateStore, type Store } from '../../src/store/db.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { standaloneCtx } from '../../src/domain/context.ts';
import { bootstrap } from '../../src/domain/bootstrap.ts';
import { newId } from '../../src/lib/ids.ts';
import { insertInstances, type InstanceInsert } from '../../src/store/compute.ts';
import { INSTANCE_STATUSES } from '../../src/domain/compute/states.ts';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const COUNT = arg('count', 100_000);
const ITER = arg('iterations', 200);
const BASE = '/gpu-instance/openapi/v1';

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

async function seedInstances(store: Store, teamId: string, clock: ManualClock): Promise<string[]> {
  const ids: string[] = [];
  const products = ['RTX 4090 24GB', 'H100 80GB', 'A100 40GB', 'L40S 48GB'];
  const words = ['train', 'serve', 'notebook', 'eval', 'finetune', 'batch', 'sweep', 'demo'];
  const batch: InstanceInsert[] = [];
  const t0 = clock.nowMs() - COUNT * 1000;
  for (let i = 0; i < COUNT; i++) {
    const at = t0 + i * 1000;
    const id = newId('instance', at);
    ids.push(id);
    batch.push({
      id, teamId, memberId: null, keyId: null, name: `${words[i % words.length]}-${i}`, clusterId: 'cls_local',
      productId: 'prd_rtx4090_24g', productName: products[i % products.length]!, status: INSTANCE_STATUSES[i % INSTANCE_STATUSES.length]!,
      statusSinceMs: at, imageUrl: 'pytorch/pytorch:2.5.1', gpuNum: 1 + (i % 4), cpuNum: 16, memoryGb: 62, rootfsSize: 50,
      ports: [{ port: 8888, type: 'http' }], envs: [{ key: 'A', value: 'b' }], kind: 'gpu', billingMode: 'onDemand', priceUnits: 3500n,
      // null: the bench's instances are not reconciled (no background work skews the timings)
      nextReconcileAtMs: null, createdAt: new Date(at), updatedAt: new Date(at),
    });
    if (batch.length === 1000) {
      await insertInstances(store.db, batch.splice(0));
    }
  }
  await insertInstances(store.db, batch);
  return ids;
}

async function bench(label: string, store: Store): Promise<string[]> {
  await migrateStore(store);
  const clock = new ManualClock();
  const creds = (await bootstrap(standaloneCtx(store.db, clock), { seedVoucherUnits: 1_000_000n }))!;
  const t0 = performance.now();
  const ids = await seedInstances(store, creds.userId, clock);
  const seedS = ((performance.now() - t0) / 1000).toFixed(1);
  if (store.kind === 'postgres') await store.db.execute('analyze instances' as never);
  const config = loadConfig({ LOG_LEVEL: 'silent', GANTRY_DATA_DIR: join(tmpdir(), 'gantry-bench-data') });
  const { app } = await buildApp({ config, store, clock, logger: false, runBackground: false });
  const headers = { authorization: `Bearer ${creds.apiKey}` };
  const cases: [string, () => string][] = [
    ['list page 1 (pageSize 20)', () => `${BASE}/gpu/instances?pageSize=20&pageNum=1`],
    ['list page 2500 (pageSize 20)', () => `${BASE}/gpu/instances?pageSize=20&pageNum=2500`],
    ['list name fuzzy "train-1"', () => `${BASE}/gpu/instances?pageSize=20&pageNum=1&name=train-1`],
    ['list productName fuzzy "h100"', () => `${BASE}/gpu/instances?pageSize=20&pageNum=1&productName=h100`],
    ['list status=running', () => `${BASE}/gpu/instances?pageSize=20&pageNum=1&status=running`],
    ['get by id (random)', () => `${BASE}/gpu/instance?instanceId=${ids[Math.floor(Math.random() * ids.length)]}`],
  ];
  const rows: string[] = [];
  for (const [name, url] of cases) {
    for (let i = 0; i < 10; i++) await app.inject({ method: 'GET', url: url(), headers }); // warm-up
    const ms: number[] = [];
    let total = -1;
    for (let i = 0; i < ITER; i++) {
      const t = performance.now();
      const r = await app.inject({ method: 'GET', url: url(), headers });
      ms.push(performance.now() - t);
      if (r.statusCode !== 200) throw new Error(`${name}: ${r.statusCode} ${r.body.slice(0, 200)}`);
      if (i === 0 && name.startsWith('list')) total = JSON.parse(r.body).total;
    }
    rows.push(`| ${label} | ${name} | ${total >= 0 ? total : '1'} | ${pct(ms, 50).toFixed(2)} | ${pct(ms, 99).toFixed(2)} |`);
  }
  await app.close();
  process.stderr.write(`${label}: seeded ${COUNT} instances in ${seedS} s\n`);
  return rows;
}

const out = ['| store | operation | matches | p50 ms | p99 ms |', '|---|---|---|---|---|'];
{
  const store = await openStore({});
  out.push(...(await bench('PGlite', store)));
  await store.close();
  process.stderr.write(out.join('\n') + '\n'); // the PGlite half survives a PostgreSQL failure
}
// --in-thread: also PGlite on the calling thread, to see what the database thread costs reads.
if (process.argv.includes('--in-thread')) {
  const store = await openStore({ pgliteThread: false });
  out.push(...(await bench('PGlite, calling thread', store)));
  await store.close();
}
const pgUrl = process.env.BENCH_DATABASE_URL;
if (pgUrl) {
  const dbName = `gantry_bench_instances_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  const u = new URL(pgUrl);
  u.pathname = `/${dbName}`;
  const store = await openStore({ databaseUrl: u.toString(), poolSize: 4 });
  try {
    out.push(...(await bench('PostgreSQL', store)));
  } finally {
    await store.close();
    // without FORCE: the pool's connections are gone by now; retry while they finish closing
    for (let i = 0; ; i++) {
      try {
        await admin.query(`drop database if exists ${dbName}`);
        break;
      } catch (e) {
        if (i >= 20) {
          process.stderr.write(`could not drop ${dbName}: ${String(e)}\n`);
          break;
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    await admin.end();
  }
}
process.stdout.write(out.join('\n') + '\n');
