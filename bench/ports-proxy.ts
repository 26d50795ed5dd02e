// An instance's port through Gantry against the same port directly, and through a bare proxy
// (node:http + undici's request, nothing else: the floor any proxy in this process has), side
// by side in one run: p50 added at 1 request in flight and the p50 ratio at 16. Gantry runs in
// this process on the embedded store with the sim driver (GANTRY_SIM_TIME_SCALE=100), the
// instance's port is a plain HTTP server of this process (the sim's servePort), and the load
// comes from this process too, so every path shares the same CPU. Sign-in by API key (the
// cached key lookup), path form.
// The three paths are measured in turn, `--rounds` times, and each one's p50 is the median of
// its rounds: on a machine shared with other work a burst of load then falls on one round of
// each path alike, not on one path's only measure.
// Usage: node bench/ports-proxy.ts [--requests 3000] [--rounds 5]
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool, request } from 'undici';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openStore, migrateStore } from '../src/store/db.ts';
import { systemClock } from '../src/lib/clock.ts';
import { standaloneCtx } from '../src/domain/context.ts';
import { bootstrap } from '../src/domain/bootstrap.ts';
import { USAGE_PROCEDURES } from '../src/domain/usage/procedures.ts';
import type { SimDriver } from '../src/drivers/sim/driver.ts';

const arg = (name: string) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : undefined);
const requests = arg('--requests') || 3000;
const rounds = arg('--rounds') || 5;
const dataDir = mkdtempSync(join(tmpdir(), 'gantry-bench-ports-'));
const config = loadConfig({ LOG_LEVEL: 'warn', GANTRY_DATA_DIR: dataDir, GANTRY_SIM_TIME_SCALE: '100' });
const store = await openStore({ dataDir: join(dataDir, 'pg'), procedures: [USAGE_PROCEDURES] });
await migrateStore(store);
const creds = (await bootstrap(standaloneCtx(store.db, systemClock), { seedVoucherUnits: 100_000_000n }))!;
const { app, services } = await buildApp({ config, store, clock: systemClock, logger: false });
const base = await app.listen({ host: '127.0.0.1', port: 0 });
const auth = { authorization: `Bearer ${creds.apiKey}` };

const port = createServer((_req, res) => res.end('{"ok":true}'));
await new Promise<void>((r) => port.listen(0, '127.0.0.1', r));
const direct = `http://127.0.0.1:${(port.address() as AddressInfo).port}`;
// the bare proxy: the same hop with no sign-in, no routing, no header rules
const bare = createServer((req, res) => {
  request(`${direct}${req.url}`, { method: 'GET', headers: { 'x-forwarded-for': req.socket.remoteAddress ?? '' } }).then((up) => {
    res.writeHead(up.statusCode, up.headers as Record<string, string>);
    up.body.pipe(res);
  }, () => res.writeHead(502).end());
});
await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
const bareBase = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;

const created = await fetch(`${base}/gpu-instance/openapi/v1/gpu/instance/create`, {
  method: 'POST', headers: { ...auth, 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'bench', productId: 'prd_rtx4090_24g', gpuNum: 1, rootfsSize: 50, imageUrl: 'bench/app:1', kind: 'gpu', ports: '8888/http' }),
});
const id = ((await created.json()) as { id: string }).id;
(services.compute.driver as SimDriver).servePort(id, 8888, direct.slice('http://'.length));
for (let t0 = performance.now(); ;) {
  const r = await fetch(`${base}/ports/${id}/8888/`, { headers: auth });
  await r.text();
  if (r.status === 200) break;
  if (performance.now() - t0 > 30_000) throw new Error(`the port never answered through Gantry (${r.status})`);
  await new Promise((res) => setTimeout(res, 20));
}

/** p50 (ms) of `requests` GETs with `inFlight` at once, each on its own connection. */
async function p50(origin: string, path: string, headers: Record<string, string>, inFlight: number): Promise<number> {
  const pool = new Pool(origin, { connections: inFlight });
  const lat: number[] = [];
  let left = requests;
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (left-- > 0) {
      const t = performance.now();
      const r = await pool.request({ path, method: 'GET', headers });
      await r.body.text();
      lat.push(performance.now() - t);
    }
  }));
  await pool.close();
  lat.sort((a, b) => a - b);
  return lat[Math.floor(lat.length / 2)]!;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rows: string[] = [];
for (const inFlight of [1, 16]) {
  await p50(direct, '/', {}, inFlight); // warm every path
  await p50(bareBase, '/', {}, inFlight);
  await p50(base, `/ports/${id}/8888/`, auth, inFlight);
  const seen = { d: [] as number[], b: [] as number[], g: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    seen.d.push(await p50(direct, '/', {}, inFlight));
    seen.b.push(await p50(bareBase, '/', {}, inFlight));
    seen.g.push(await p50(base, `/ports/${id}/8888/`, auth, inFlight));
  }
  const [d, b, g] = [median(seen.d), median(seen.b), median(seen.g)];
  rows.push(`| ${inFlight} | ${d.toFixed(3)} | ${b.toFixed(3)} | ${g.toFixed(3)} | ${(g - d).toFixed(3)} | ${(b / d).toFixed(2)}x | ${(g / d).toFixed(2)}x | ${(g / b).toFixed(2)}x |`);
}
console.log(`ports proxy, ${requests} requests per measure, median of ${rounds} rounds
| in flight | direct p50 ms | bare proxy p50 ms | through Gantry p50 ms | Gantry added ms | bare / direct | Gantry / direct | Gantry / bare |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}`);
await app.close();
bare.close();
port.close();
await store.close();
rmSync(dataDir, { recursive: true, force: true });
