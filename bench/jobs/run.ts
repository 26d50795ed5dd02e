// The two candidates for Gantry's job runner, measured in one run on the same store:
// (g) Gantry's runner on its own table (src/jobs/runner.ts) and (b) pg-boss 12.35.0, on
// embedded PGlite (on its worker thread, as `npm start` runs it) and, with
// BENCH_DATABASE_URL, on PostgreSQL. Each (store, candidate) runs in a child process of its
// own so that memory and idle traffic are its alone. Per child:
//   import     loading the candidate's modules (what the store already loaded not counted)
//   start-up   construct + start + 6 job types registered, until the first poll is done
//              (pg-boss: its first start installs its schema; the second is what every start costs)
//   RSS        process RSS after start-up minus before the candidate was imported (after a GC)
//   idle       statements sent to the database per minute with 6 types and no jobs, and a point
//              read's p50/p99 meanwhile vs. the same read before the candidate was loaded
//   burst      N jobs enqueued one at a time while the workers run (up to 8 at once): enqueue
//              rate, end-to-end rate (first enqueue to last job finished), enqueue→start p50/p99,
//              and the point read's p99 meanwhile (the request path under job load)
//   trickle    100 jobs enqueued 20 ms apart: enqueue→start p50/p99; (g) also from another
//              runner object ("remote": another replica, no in-process wake-up)
// Both poll every 500 ms (pg-boss's minimum). pg-boss is not a dependency of Gantry (the
// decision is in src/jobs/README.md); install it for this bench only:
//   npm install --no-save pg-boss@12.35.0
//   node bench/jobs/run.ts [--n 2000] [--idle-seconds 15] [--rounds 3] [--write]
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/jobs/run.ts --write
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import os from 'node:os';
import pg from 'pg';
import { Type } from 'typebox';
import { openStore, migrateStore, type Store } from '../../src/store/db.ts';
import { RemotePGlite } from '../../src/store/pglite-remote.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { standaloneCtx } from '../../src/domain/context.ts';
import { claimSetting, getSetting } from '../../src/store/settings.ts';

const SELF = fileURLToPath(import.meta.url);
const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const N = arg('n', 2000);
const IDLE_S = arg('idle-seconds', 15);
const ROUNDS = arg('rounds', 3);
const TYPES = 6;
const CONCURRENCY = 8;
const POLL_MS = 500;

type Candidate = 'gantry' | 'pgboss';
interface Result {
  store: string;
  candidate: Candidate;
  importMs: number;
  installMs?: number;
  startMs: number;
  rssMb: number;
  idleStatementsPerMin: number;
  idleReadP50: number; idleReadP99: number; baseReadP50: number; baseReadP99: number;
  enqueuePerS: number; enqueueP50Ms: number;
  /** CPU of this process (all threads: PGlite's included, PostgreSQL's server not) per job of the burst */
  burstCpuUsPerJob: number;
  endToEndPerS: number; burstStartP50: number; burstStartP99: number; burstReadP99: number;
  trickleP50: number; trickleP99: number; remoteP50?: number; remoteP99?: number;
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN;
}

// ---- child: one candidate on one store ----

/** Round trips to the database: messages to PGlite's thread, or pg client queries. */
let statements = 0;
function countStatements(): void {
  const proto = RemotePGlite.prototype as unknown as { call: (...a: unknown[]) => unknown };
  const call = proto.call;
  proto.call = function (this: unknown, ...a: unknown[]) {
    statements++;
    return call.apply(this, a);
  };
  const query = pg.Client.prototype.query as (...a: unknown[]) => unknown;
  (pg.Client.prototype as unknown as { query: unknown }).query = function (this: unknown, ...a: unknown[]) {
    statements++;
    return query.apply(this, a);
  };
}

function rssMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss / 1048576;
}

/** A point read every 20 ms for `ms` (or until `until` resolves): the request path's stand-in. */
async function probe(store: Store, opts: { ms?: number; until?: Promise<unknown> }): Promise<{ lat: number[]; reads: number }> {
  const lat: number[] = [];
  let done = false;
  void opts.until?.then(() => { done = true; });
  const end = performance.now() + (opts.ms ?? Infinity);
  while (!done && performance.now() < end) {
    const t = performance.now();
    await getSetting(store.db, 'bench_probe');
    lat.push(performance.now() - t);
    await delay(20);
  }
  return { lat, reads: lat.length };
}

interface Worker {
  /** enqueue one job of the busy type; its payload carries the enqueue time */
  enqueue(): Promise<void>;
  /** enqueue from another instance (another replica) when the candidate has that notion */
  enqueueRemote?(): Promise<void>;
  stop(): Promise<void>;
}

type OnStart = (enqueuedAt: number) => void;

type GantryModules = [typeof import('../../src/jobs/runner.ts'), typeof import('../../src/domain/jobs/job-type.ts')];

async function startGantry(store: Store, [{ JobRunner }, { defineJob }]: GantryModules, onStart: OnStart): Promise<Worker> {
  const ctx = standaloneCtx(store.db, systemClock);
  const runner = new JobRunner({ ctx, pollMs: POLL_MS });
  const Busy = defineJob({
    name: 'bench.busy', payload: Type.Object({ t: Type.Number() }), concurrency: CONCURRENCY, leaseMs: 30_000,
    retry: { maxAttempts: 3, backoff: { firstMs: 1000, factor: 2, maxMs: 60_000 } },
  });
  runner.register(Busy, async (job) => onStart(job.payload.t));
  for (let i = 1; i < TYPES; i++) {
    runner.register(defineJob({ ...Busy, name: `bench.idle${i}`, concurrency: 1 }), async () => {});
  }
  await runner.runDue(); // the first poll
  runner.start();
  const remote = new JobRunner({ ctx, pollMs: POLL_MS }); // never started: enqueues like another replica
  return {
    enqueue: async () => { await runner.enqueue(Busy, { t: performance.now() }); },
    enqueueRemote: async () => { await remote.enqueue(Busy, { t: performance.now() }); },
    stop: () => runner.stop(),
  };
}

// pg-boss is not a dependency: the part of its API used here, and an import tsc does not resolve.
const PG_BOSS = 'pg-boss';
interface PgBossLike {
  on(event: 'error', fn: (err: unknown) => void): void;
  start(): Promise<unknown>;
  stop(opts?: { graceful?: boolean; wait?: boolean }): Promise<void>;
  createQueue(name: string, opts?: { notify?: boolean }): Promise<void>;
  work<T>(name: string, opts: object, handler: (jobs: { data: T }[]) => Promise<void>): Promise<string>;
  send(name: string, data: object): Promise<string | null>;
}
interface PgBossModule {
  PgBoss: new (opts: object) => PgBossLike;
  fromPglite(pglite: unknown): unknown;
}

async function startPgBoss(store: Store, { PgBoss, fromPglite }: PgBossModule, onStart: OnStart, first: boolean): Promise<Worker> {
  const conn = store.kind === 'pglite'
    ? { db: fromPglite(store.pglite as never), backend: 'pglite' as const }
    : { connectionString: store.databaseUrl!, max: 4, useListenNotify: true };
  const boss = new PgBoss({ ...conn, schema: 'pgboss' });
  boss.on('error', (err) => process.stderr.write(`pg-boss error: ${String(err)}\n`));
  await boss.start();
  const notify = store.kind === 'postgres';
  for (let i = 0; i < TYPES; i++) {
    const name = i === 0 ? 'bench-busy' : `bench-idle${i}`;
    if (first) await boss.createQueue(name, { notify });
    if (i === 0) {
      // batches of up to 8, fetched back to back while they come back full: pg-boss's fast mode
      await boss.work<{ t: number }>(name, { batchSize: CONCURRENCY, burstWhenBatchFull: true, pollingIntervalSeconds: POLL_MS / 1000 },
        async (jobs) => { for (const j of jobs) onStart(j.data.t); });
    } else {
      await boss.work(name, { pollingIntervalSeconds: POLL_MS / 1000 }, async () => {});
    }
  }
  return {
    enqueue: async () => { await boss.send('bench-busy', { t: performance.now() }); },
    stop: () => boss.stop({ graceful: true, wait: true }),
  };
}

async function child(candidate: Candidate, storeArg: string): Promise<Result> {
  countStatements();
  const store = storeArg === 'pglite' ? await openStore({}) : await openStore({ databaseUrl: storeArg, poolSize: 4 });
  await migrateStore(store);
  await claimSetting(store.db, 'bench_probe', { x: 1 });
  const base = await probe(store, { ms: 3000 });
  const rss0 = rssMb();

  let started: number[] = [];
  const onStart: OnStart = (at) => { started.push(performance.now() - at); };
  const ti = performance.now();
  const modules = candidate === 'gantry'
    ? await Promise.all([import('../../src/jobs/runner.ts'), import('../../src/domain/jobs/job-type.ts')])
    : (await import(PG_BOSS)) as PgBossModule;
  const importMs = performance.now() - ti;
  let installMs: number | undefined;
  if (candidate === 'pgboss') {
    // The first start installs pg-boss's schema (once per database); then the start every process pays.
    const t = performance.now();
    const w = await startPgBoss(store, modules as PgBossModule, onStart, true);
    installMs = performance.now() - t;
    await w.stop();
  }
  const t0 = performance.now();
  const w = candidate === 'gantry' ? await startGantry(store, modules as GantryModules, onStart) : await startPgBoss(store, modules as PgBossModule, onStart, false);
  const startMs = performance.now() - t0;
  const rssMbDelta = rssMb() - rss0;

  // idle
  await delay(1000); // first-round timers after start
  const s0 = statements;
  const idle = await probe(store, { ms: IDLE_S * 1000 });
  const idleStatementsPerMin = ((statements - s0 - idle.reads) / IDLE_S) * 60;

  // burst
  started = [];
  let allStarted!: () => void;
  const finished = new Promise<void>((r) => { allStarted = r; });
  const check = setInterval(() => { if (started.length >= N) allStarted(); }, 2);
  const tb = performance.now();
  const cpu0 = process.cpuUsage();
  const reads = probe(store, { until: finished });
  const enq: number[] = [];
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    await w.enqueue();
    enq.push(performance.now() - t);
  }
  const enqueueS = (performance.now() - tb) / 1000;
  await finished;
  clearInterval(check);
  const endToEndS = (performance.now() - tb) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const burst = started;
  const burstReads = await reads;

  // trickle
  const trickle = async (enqueue: () => Promise<void>) => {
    started = [];
    for (let i = 0; i < 100; i++) {
      await enqueue();
      await delay(20);
    }
    while (started.length < 100) await delay(10);
    return started;
  };
  const local = await trickle(() => w.enqueue());
  const remote = w.enqueueRemote ? await trickle(w.enqueueRemote) : undefined;
  await w.stop();
  await store.close();
  return {
    store: store.kind === 'pglite' ? 'PGlite' : 'PostgreSQL', candidate, importMs, ...(installMs !== undefined ? { installMs } : {}),
    startMs, rssMb: rssMbDelta, idleStatementsPerMin,
    idleReadP50: pct(idle.lat, 50), idleReadP99: pct(idle.lat, 99), baseReadP50: pct(base.lat, 50), baseReadP99: pct(base.lat, 99),
    enqueuePerS: N / enqueueS, enqueueP50Ms: pct(enq, 50), burstCpuUsPerJob: (cpu.user + cpu.system) / N,
    endToEndPerS: N / endToEndS, burstStartP50: pct(burst, 50), burstStartP99: pct(burst, 99), burstReadP99: pct(burstReads.lat, 99),
    trickleP50: pct(local, 50), trickleP99: pct(local, 99),
    ...(remote ? { remoteP50: pct(remote, 50), remoteP99: pct(remote, 99) } : {}),
  };
}

// ---- parent ----

function runChild(candidate: Candidate, store: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ['--expose-gc', SELF, '--child', candidate, store, '--n', String(N), '--idle-seconds', String(IDLE_S)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    c.stdout.on('data', (d) => { out += d; });
    c.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`${candidate} on ${store}: exit ${code}`))));
  });
}

async function withDatabase<T>(url: string, fn: (dbUrl: string) => Promise<T>): Promise<T> {
  const name = `gantry_bench_jobs_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const u = new URL(url);
  u.pathname = `/${name}`;
  try {
    return await fn(u.toString());
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

const f = (n: number | undefined, d = 1) => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(d));

function median(rs: Result[]): Result {
  const out: Record<string, unknown> = { ...rs[0]! };
  for (const [k, v] of Object.entries(rs[0]!)) {
    if (typeof v === 'number') out[k] = pct(rs.map((r) => (r as unknown as Record<string, number>)[k]!), 50);
  }
  return out as unknown as Result;
}

function table(results: Result[]): string {
  const name = (r: Result) => `${r.candidate === 'gantry' ? '(g) Gantry runner' : '(b) pg-boss'}, ${r.store}`;
  const lines = [
    `| candidate, store | import ms | start-up ms | RSS +MB | idle statements/min | point read p50/p99 ms idle (without) | enqueue/s | end-to-end jobs/s | CPU µs/job | enqueue→start p50/p99 ms, burst | point read p99 ms, burst | enqueue→start p50/p99 ms, trickle | same, from another replica |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    lines.push(`| ${name(r)} | ${f(r.importMs, 0)} | ${f(r.startMs, 0)}${r.installMs !== undefined ? ` (first: ${f(r.installMs, 0)})` : ''} | ${f(r.rssMb)} | ${f(r.idleStatementsPerMin, 0)} | ${f(r.idleReadP50, 2)}/${f(r.idleReadP99, 2)} (${f(r.baseReadP50, 2)}/${f(r.baseReadP99, 2)}) | ${f(r.enqueuePerS, 0)} | ${f(r.endToEndPerS, 0)} | ${f(r.burstCpuUsPerJob, 0)} | ${f(r.burstStartP50, 0)}/${f(r.burstStartP99, 0)} | ${f(r.burstReadP99, 2)} | ${f(r.trickleP50, 1)}/${f(r.trickleP99, 1)} | ${r.remoteP50 === undefined ? '(same path)' : `${f(r.remoteP50, 1)}/${f(r.remoteP99, 1)}`} |`);
  }
  const ratio = (store: string, key: keyof Result) => {
    const g = results.find((r) => r.store === store && r.candidate === 'gantry')?.[key] as number | undefined;
    const b = results.find((r) => r.store === store && r.candidate === 'pgboss')?.[key] as number | undefined;
    return g && b ? `${(b / g).toFixed(1)}×` : '–';
  };
  lines.push('', '| (b) pg-boss ÷ (g) Gantry | start-up | idle statements | enqueue/s | end-to-end jobs/s | CPU per job |', '|---|---:|---:|---:|---:|---:|');
  for (const store of [...new Set(results.map((r) => r.store))]) {
    lines.push(`| ${store} | ${ratio(store, 'startMs')} | ${ratio(store, 'idleStatementsPerMin')} | ${ratio(store, 'enqueuePerS')} | ${ratio(store, 'endToEndPerS')} | ${ratio(store, 'burstCpuUsPerJob')} |`);
  }
  lines.push('', `Run: ${new Date().toISOString()}, medians of ${ROUNDS} rounds (candidates alternating), N = ${N}, ${TYPES} job types, up to ${CONCURRENCY} jobs at once, polling every ${POLL_MS} ms, idle window ${IDLE_S} s, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), Node ${process.version}.`);
  return lines.join('\n');
}

if (process.argv[2] === '--child') {
  const r = await child(process.argv[3] as Candidate, process.argv[4]!);
  process.stdout.write(JSON.stringify(r) + '\n');
  process.exit(0); // pg-boss or the pool may keep timers; the child's work is done
} else {
  try {
    await import(PG_BOSS);
  } catch {
    process.stderr.write('pg-boss is not installed (it is not a dependency of Gantry). For this bench only: npm install --no-save pg-boss@12.35.0\n');
    process.exit(2);
  }
  // The machine's load moves between children: each candidate runs ROUNDS times, the two
  // alternating, and each figure is the median of its rounds.
  const results: Result[] = [];
  const stores: [string, (c: Candidate) => Promise<Result>][] = [['PGlite', (c) => runChild(c, 'pglite')]];
  const pgUrl = process.env.BENCH_DATABASE_URL;
  if (pgUrl) stores.push(['PostgreSQL', (c) => withDatabase(pgUrl, (u) => runChild(c, u))]);
  for (const [label, run] of stores) {
    const rounds: Record<Candidate, Result[]> = { gantry: [], pgboss: [] };
    for (let i = 0; i < ROUNDS; i++) {
      for (const c of i % 2 ? ['pgboss', 'gantry'] as const : ['gantry', 'pgboss'] as const) {
        process.stderr.write(`${c} on ${label}, round ${i + 1}/${ROUNDS}…\n`);
        rounds[c].push(await run(c));
      }
    }
    results.push(median(rounds.gantry), median(rounds.pgboss));
  }
  const summary = table(results);
  process.stdout.write(summary + '\n');
  if (process.argv.includes('--write')) {
    const readme = fileURLToPath(new URL('../README.md', import.meta.url));
    const text = readFileSync(readme, 'utf8');
    const begin = '<!-- jobs:results:begin -->';
    const end = '<!-- jobs:results:end -->';
    if (!text.includes(begin)) throw new Error(`bench/README.md has no ${begin} marker`);
    writeFileSync(readme, text.slice(0, text.indexOf(begin) + begin.length) + '\n' + summary + '\n' + text.slice(text.indexOf(end)));
  }
}
