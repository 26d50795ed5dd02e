// Serverless router overhead: the same requests sent straight to a worker and through the
// endpoint URL (auth, endpoint lookup, slot, proxy), in one run, as ratios. Also the time
// from a burst to a second worker serving. Gantry runs in this process on the embedded
// store with the sim driver (GANTRY_SIM_TIME_SCALE=100: a worker boots in ~0.13 s) and its
// background jobs on a real clock; the load comes from this process too, so both paths
// share the same CPU. Usage: node bench/serverless.ts [--seconds 4] [--write]
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openStore, migrateStore } from '../src/store/db.ts';
import { systemClock } from '../src/lib/clock.ts';
import { standaloneCtx } from '../src/domain/context.ts';
import { bootstrap } from '../src/domain/bootstrap.ts';
import { USAGE_PROCEDURES } from '../src/domain/usage/procedures.ts';
import * as q from '../src/store/serverless-workers.ts';

const seconds = Number(process.argv[process.argv.indexOf('--seconds') + 1]) || 4;
const dataDir = mkdtempSync(join(tmpdir(), 'gantry-bench-sl-'));
const config = loadConfig({ LOG_LEVEL: 'warn', GANTRY_DATA_DIR: dataDir, GANTRY_SIM_TIME_SCALE: '100', GANTRY_RECONCILE_INTERVAL_MS: '100' });
const store = await openStore({ dataDir: join(dataDir, 'pg'), procedures: [USAGE_PROCEDURES] });
await migrateStore(store);
const creds = (await bootstrap(standaloneCtx(store.db, systemClock), { seedVoucherUnits: 100_000_000n }))!;
const { app } = await buildApp({ config, store, clock: systemClock, logger: false });
const base = await app.listen({ host: '127.0.0.1', port: 0 });

const BASE = '/gpu-instance/openapi/v1';
async function api(path: string, body: unknown): Promise<any> {
  const r = await fetch(base + path, { method: 'POST', headers: { authorization: `Bearer ${creds.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const out = await r.json();
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(out)}`);
  return out;
}
const endpoint = {
  appName: 'bench', image: { image: 'gantry/sim-worker:1' }, ports: [{ port: 8000 }], products: [{ id: 'prd_rtx4090_24g' }],
  policy: { type: 'concurrency', value: 1 }, healthy: { path: '/health', initialDelay: 0, period: 1, timeout: 2, successThreshold: 1, failureThreshold: 3 },
  workerConfig: { minNum: 1, maxNum: 2, freeTimeout: 1000, maxConcurrent: 1000, gpuNum: 1, requestTimeout: 120 },
};
const id = (await api(`${BASE}/endpoint/create`, { endpoint })).id as string;
async function waitFor(what: string, check: () => Promise<boolean>, limitMs = 30_000): Promise<number> {
  const t0 = performance.now();
  while (!(await check())) {
    if (performance.now() - t0 > limitMs) throw new Error(`${what}: not within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return performance.now() - t0;
}
const routable = () => q.listRoutableWorkers(store.db, id);
await waitFor('first worker', async () => (await routable()).length === 1);
const worker = (await routable())[0]!;

async function measure(origin: string, path: string, headers: Record<string, string>) {
  const one = new Pool(origin, { connections: 1 });
  const lat: number[] = [];
  for (let i = 0; i < 300; i++) {
    const t = performance.now();
    const r = await one.request({ path, method: 'GET', headers });
    await r.body.text();
    if (r.statusCode !== 200) throw new Error(`${origin}${path}: ${r.statusCode}`);
    if (i >= 50) lat.push(performance.now() - t);
  }
  await one.close();
  lat.sort((a, b) => a - b);
  const pool = new Pool(origin, { connections: 50, pipelining: 1 });
  let done = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(Array.from({ length: 50 }, async () => {
    while (performance.now() < until) {
      const r = await pool.request({ path, method: 'GET', headers });
      await r.body.text();
      done++;
    }
  }));
  await pool.close();
  return { p50: lat[Math.floor(lat.length / 2)]!, rps: done / seconds };
}

const direct = await measure(`http://${worker.address}`, '/hello', {});
const routed = await measure(base, '/serverless/bench/hello', { authorization: `Bearer ${creds.apiKey}` });

// A burst on one worker with maxConcurrent 1: the time until a second worker serves.
// (an update rolls the workers: wait until the new one alone serves)
await api(`${BASE}/endpoint/update`, { id, ...endpoint, workerConfig: { ...endpoint.workerConfig, maxConcurrent: 1 } });
await waitFor('the updated worker', async () => {
  const rows = await q.listLiveWorkers(store.db, id);
  return rows.length === 1 && rows[0]!.healthy && rows[0]!.specVersion === 2;
});
const burstPool = new Pool(base, { connections: 8 });
const t0 = performance.now();
const burst = Array.from({ length: 8 }, () => burstPool.request({ path: '/serverless/bench/slow', method: 'GET', headers: { authorization: `Bearer ${creds.apiKey}`, 'x-sim-delay-ms': '300' } }).then((r) => r.body.text()));
await waitFor('second worker', async () => (await routable()).length >= 2);
const toSecond = performance.now() - t0;
await Promise.all(burst);
await burstPool.close();

const result = {
  p50DirectMs: +direct.p50.toFixed(3), p50RoutedMs: +routed.p50.toFixed(3), addedP50Ms: +(routed.p50 - direct.p50).toFixed(3),
  rpsDirect: Math.round(direct.rps), rpsRouted: Math.round(routed.rps), rpsRatio: +(routed.rps / direct.rps).toFixed(2),
  burstToSecondWorkerMs: Math.round(toSecond),
};
console.log(JSON.stringify(result));
if (process.argv.includes('--write')) {
  const readme = new URL('./README.md', import.meta.url);
  const text = readFileSync(readme, 'utf8');
  const line = `| ${new Date().toISOString().slice(0, 16)} | ${result.p50DirectMs} | ${result.p50RoutedMs} | ${result.addedP50Ms} | ${result.rpsDirect} | ${result.rpsRouted} | ${result.rpsRatio} | ${result.burstToSecondWorkerMs} |`;
  writeFileSync(readme, text.replace('<!-- serverless-results -->', `<!-- serverless-results -->\n${line}`));
}
await app.close();
await store.close();
rmSync(dataDir, { recursive: true, force: true });
