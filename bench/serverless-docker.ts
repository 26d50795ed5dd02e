// Serverless workers as real containers (issue 31): (a) a worker's cold start, endpoint create →
// first worker healthy, split into what Gantry, the engine, the worker and the health probe
// each take; (b) the router's added latency: the same small GET sent to the worker's address
// (on its team's network: a worker is never published) and through Gantry's /serverless/<app>/
// route, in one run, at 1 and 16 requests in flight.
//
// Everything is real: an engine of the bench's own (test/helpers/engines.ts: Podman by default,
// or dockerd; private socket, busybox-static test image, removed at the end), a `gantry serve`
// process on the docker driver (test/helpers/server.ts; embedded PGlite, its own data dir), and
// the worker the test image's busybox httpd. The load comes from this process (undici), Gantry
// runs in its own. Needs root (the engines do).
//
// Usage: node bench/serverless-docker.ts [--engine podman|dockerd] [--runs 7] [--requests 2000]
//        [--concurrency 1,16] [--interval 1000] [--write]
// --interval is GANTRY_RECONCILE_INTERVAL_MS (Gantry's default 1000: what an operator runs).
// --write puts the tables into bench/README.md between this bench's markers (one per engine).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { startServer } from '../test/helpers/server.ts';
import { type EngineKind, startEngine } from '../test/helpers/engines.ts';
import { readCreds } from '../test/helpers/data-dir.ts';
import { engineTimeMs } from '../src/drivers/docker/container.ts';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1]! : dflt);
const kind = opt('--engine', 'podman') as EngineKind;
if (kind !== 'podman' && kind !== 'dockerd') throw new Error(`--engine podman|dockerd, got ${kind}`);
const runs = Number(opt('--runs', '7'));
const requests = Number(opt('--requests', '2000'));
const concurrencies = opt('--concurrency', '1,16').split(',').map(Number);
const intervalMs = opt('--interval', '1000');

const BASE = '/gpu-instance/openapi/v1';
const PORT = 8080;
const PRODUCT = {
  id: 'prd_bench_tiny', name: 'tiny', gpuModel: 'none', cpuPerGpu: 1, memoryPerGpu: 1, diskPerGpu: 10, minRootfs: 1, maxRootfs: 100,
  price: 36_000, spotPrice: 36_000, monthlyPrice: 1_000_000, billingMethods: ['onDemand'],
};
/** busybox httpd, healthy as soon as it serves: /health exists from the start */
const COMMAND = `echo ok > /www/health; exec httpd -f -p ${PORT} -h /www`;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};
const f1 = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
const f2 = (x: number) => x.toFixed(2);

const engine = await startEngine(kind);
const dataDir = mkdtempSync(join(tmpdir(), 'gantry-bench-sl-docker-'));
const server = await startServer({
  GANTRY_DATA_DIR: dataDir, GANTRY_COMPUTE_DRIVER: 'docker', GANTRY_DOCKER_HOST: engine.host, GANTRY_DOCKER_NETWORK: 'gantry-bench',
  GANTRY_RECONCILE_INTERVAL_MS: intervalMs,
}, { watchdogMs: 3_600_000 });
const cleanup = async () => {
  await server.kill('SIGTERM');
  await engine.stop();
  rmSync(dataDir, { recursive: true, force: true });
};

try {
  const creds = readCreds(dataDir);
  const call = async (token: string, method: string, path: string, body?: unknown): Promise<any> => {
    const r = await fetch(server.url + path, {
      method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const out = await r.json().catch(() => ({}));
    if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(out)}`);
    return out;
  };
  await call(creds.adminToken, 'POST', '/admin/v1/gpu/products', PRODUCT);
  await call(creds.adminToken, 'PUT', `/admin/v1/gpu/products/${PRODUCT.id}/inventory/cls_local`, { totalGpus: 8 });
  await call(creds.adminToken, 'POST', `/admin/v1/teams/${creds.userId}/topups`, { amount: 100_000_000, idempotencyKey: 'bench-sl-docker' });
  await call(creds.adminToken, 'PUT', '/admin/v1/serverless/limits', { minGPUNum: 0 });

  const createEndpoint = async (appName: string, maxConcurrent: number): Promise<string> => (await call(creds.apiKey, 'POST', `${BASE}/endpoint/create`, {
    endpoint: {
      appName, image: { image: engine.image, command: COMMAND }, ports: [{ port: PORT }], products: [{ id: PRODUCT.id }], rootfsSize: 10,
      policy: { type: 'concurrency', value: 1000 },
      healthy: { path: '/health', initialDelay: 0, period: 1, timeout: 2, successThreshold: 1, failureThreshold: 3 },
      workerConfig: { minNum: 1, maxNum: 1, freeTimeout: 1000, maxConcurrent, gpuNum: 0, requestTimeout: 60 },
    },
  })).id;
  const containerOf = async (id: string): Promise<any | undefined> => {
    const filters = encodeURIComponent(JSON.stringify({ label: [`io.gantry.endpoint=${id}`] }));
    const [c] = (await engine.api('GET', `/containers/json?all=1&filters=${filters}`)).json ?? [];
    return c ? (await engine.api('GET', `/containers/${c.Id}/json`)).json : undefined;
  };
  const healthyWorker = async (id: string): Promise<boolean> => {
    const ep = (await call(creds.apiKey, 'GET', `${BASE}/endpoint?id=${id}`)).endpoint;
    return ep.workers.some((w: any) => w.state.state === 'running' && w.healthy);
  };
  // a worker is never published (issue 40): it answers at its address on its team's network, which this host reaches
  const workerAt = (c: any): string => {
    const ip = c?.State?.Status === 'running' ? Object.values((c.NetworkSettings?.Networks ?? {}) as Record<string, { IPAddress?: string }>).find((n) => n.IPAddress)?.IPAddress : undefined;
    return ip ? `${ip}:${PORT}` : '';
  };
  const answers = async (address: string): Promise<boolean> => fetch(`http://${address}/health`, { signal: AbortSignal.timeout(1000) })
    .then(async (r) => {
      await r.text();
      return r.status === 200;
    }, () => false);
  const waitFor = async (what: string, check: () => Promise<boolean>, limitMs = 120_000): Promise<void> => {
    const giveUp = Date.now() + limitMs;
    while (!(await check())) {
      if (Date.now() > giveUp) throw new Error(`${what}: not within ${limitMs} ms`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };

  // ---- (a) cold start ----
  interface Cold { total: number; toCreated: number; createdToStarted: number; startedToAnswers: number; answersToHealthy: number }
  const cold: Cold[] = [];
  for (let i = 0; i < runs + 1; i++) {
    const t0 = Date.now();
    const id = await createEndpoint(`cold-${i}`, 1);
    // three watchers at once: the engine's container, its port answering /health, Gantry saying healthy
    let answeredAt = 0;
    let address = '';
    let container: any;
    let healthyAt = 0;
    await waitFor(`cold start ${i}`, async () => {
      if (!answeredAt) {
        container = await containerOf(id);
        address ||= workerAt(container);
        if (address && (await answers(address))) answeredAt = Date.now();
      }
      if (!healthyAt && (await healthyWorker(id))) healthyAt = Date.now();
      return answeredAt > 0 && healthyAt > 0;
    });
    container = await containerOf(id);
    const createdAt = engineTimeMs(container.Created)!;
    const startedAt = engineTimeMs(container.State.StartedAt)!;
    const sample = {
      total: healthyAt - t0, toCreated: createdAt - t0, createdToStarted: startedAt - createdAt,
      startedToAnswers: answeredAt - startedAt, answersToHealthy: Math.max(0, healthyAt - answeredAt),
    };
    if (i > 0) cold.push(sample); // the first run pays the network's creation and cold caches: not counted
    console.error(`cold start ${i}${i === 0 ? ' (warm-up, not counted)' : ''}: ${JSON.stringify(sample)}`);
    await call(creds.apiKey, 'POST', `${BASE}/endpoint/delete`, { name: id });
    await waitFor(`endpoint ${id} removed`, async () => (await containerOf(id)) === undefined).catch(async (err) => {
      const c = await containerOf(id);
      const vols = (await engine.api('GET', '/volumes')).json?.Volumes?.map((v: any) => v.Name);
      const log = await fetch(`${server.url}${BASE}/endpoint/log?id=${id}`, { headers: { authorization: `Bearer ${creds.apiKey}` } }).then((r) => r.text());
      const jobs = await fetch(`${server.url}/admin/v1/jobs`, { headers: { authorization: `Bearer ${creds.adminToken}` } }).then((r) => r.text());
      const ep = await fetch(`${server.url}${BASE}/endpoint?id=${id}`, { headers: { authorization: `Bearer ${creds.apiKey}` } }).then((r) => r.text());
      throw new Error(`${(err as Error).message}\njobs: ${jobs.slice(0, 3000)}\nendpoint: ${ep.slice(0, 1500)}\ncontainer: ${JSON.stringify(c?.State)} ${c?.Name}\nvolumes: ${vols}\nlog: ${log}\ngantry: ${server.output().slice(-3000)}`);
    });
  }

  // ---- (b) the router's added latency ----
  const id = await createEndpoint('lat', 1000);
  await waitFor('the latency endpoint serves', () => healthyWorker(id));
  const address = workerAt(await containerOf(id));
  const routedOrigin = server.url;
  const auth = { authorization: `Bearer ${creds.apiKey}` };
  /** `n` GETs at `c` in flight; each one's latency in ms */
  const measure = async (origin: string, path: string, headers: Record<string, string>, c: number, n: number): Promise<number[]> => {
    const pool = new Pool(origin, { connections: c, pipelining: 1 });
    const lat: number[] = [];
    let left = n;
    await Promise.all(Array.from({ length: c }, async () => {
      while (left-- > 0) {
        const t = performance.now();
        const r = await pool.request({ path, method: 'GET', headers });
        const text = await r.body.text();
        if (r.statusCode !== 200 || text !== 'gantry-test-page\n') throw new Error(`${origin}${path}: ${r.statusCode} ${text.slice(0, 200)}`);
        lat.push(performance.now() - t);
      }
    }));
    await pool.close();
    return lat;
  };
  const lat: { c: number; direct: number[]; routed: number[] }[] = [];
  for (const c of concurrencies) {
    await measure(`http://${address}`, '/index.html', {}, c, 200); // warm-up, both ways
    await measure(routedOrigin, '/serverless/lat/index.html', auth, c, 200);
    const direct: number[] = [];
    const routed: number[] = [];
    // alternating halves, so drift of the shared machine falls on both
    for (let half = 0; half < 2; half++) {
      direct.push(...(await measure(`http://${address}`, '/index.html', {}, c, requests / 2)));
      routed.push(...(await measure(routedOrigin, '/serverless/lat/index.html', auth, c, requests / 2)));
    }
    lat.push({ c, direct, routed });
  }
  await call(creds.apiKey, 'POST', `${BASE}/endpoint/delete`, { name: id });

  // ---- the tables ----
  const version = (await engine.api('GET', '/version')).json;
  const when = new Date().toISOString().slice(0, 16);
  const coldRows = (['total', 'toCreated', 'createdToStarted', 'startedToAnswers', 'answersToHealthy'] as const).map((k) => {
    const label = {
      total: '**create → first worker healthy**', toCreated: 'create → container created (Gantry: passes, driver create)',
      createdToStarted: 'container created → started (engine)', startedToAnswers: 'started → its port answers /health (httpd, port publishing)',
      answersToHealthy: 'port answers → Gantry marks it healthy (next pass, its probe)',
    }[k];
    const xs = cold.map((s) => s[k]);
    return `| ${label} | ${f1(pct(xs, 50))} | ${f1(pct(xs, 90))} | ${f1(Math.min(...xs))} | ${f1(Math.max(...xs))} |`;
  });
  const latRows = lat.flatMap(({ c, direct, routed }) => [
    `| ${c} | direct to the worker's port | ${f2(pct(direct, 50))} | ${f2(pct(direct, 90))} | ${f2(pct(direct, 99))} |`,
    `| ${c} | through /serverless/lat/ | ${f2(pct(routed, 50))} | ${f2(pct(routed, 90))} | ${f2(pct(routed, 99))} |`,
    `| ${c} | router / direct | ${f2(pct(routed, 50) / pct(direct, 50))}× (+${f2(pct(routed, 50) - pct(direct, 50))} ms) | ${f2(pct(routed, 90) / pct(direct, 90))}× | ${f2(pct(routed, 99) / pct(direct, 99))}× |`,
  ]);
  const table = [
    `\`node bench/serverless-docker.ts ${argv.filter((a) => a !== '--write').join(' ')}\``.replace(' `', '`'),
    '',
    `Run ${when} UTC: engine ${kind} (${version?.Components?.find((x: any) => /podman|engine/i.test(x.Name))?.Name ?? ''} ${version?.Version ?? ''}), `
      + `reconcile interval ${intervalMs} ms, ${cpus().length} cores (shared with other work), Node ${process.version}.`,
    '',
    `(a) Cold start, ${cold.length} runs (after one unmeasured), ms:`,
    '',
    '| step | median | p90 | min | max |',
    '|---|---:|---:|---:|---:|',
    ...coldRows,
    '',
    `(b) The same GET of the 17-byte /index.html, ${requests} requests per cell (two alternating halves), ms:`,
    '',
    '| in flight | path | p50 | p90 | p99 |',
    '|---:|---|---:|---:|---:|',
    ...latRows,
  ].join('\n');
  console.log(table);
  if (argv.includes('--write')) {
    const readme = new URL('./README.md', import.meta.url);
    const text = readFileSync(readme, 'utf8');
    const key = intervalMs === '1000' ? kind : `${kind}-interval-${intervalMs}`;
    const begin = `<!-- serverless-docker:${key}:begin -->`;
    const end = `<!-- serverless-docker:${key}:end -->`;
    if (!text.includes(begin)) throw new Error(`bench/README.md has no ${begin} marker`);
    writeFileSync(readme, text.replace(new RegExp(`${begin}[\\s\\S]*?${end}`), `${begin}\n${table}\n${end}`));
  }
} finally {
  await cleanup();
}
