// A real `gantry serve` on the docker driver (GANTRY_COMPUTE_DRIVER=docker) against a dockerd
// of the test's own (helpers/engines.ts), killed with SIGKILL and started again on the same
// data dir (issue 31: no driver state outside the engine). The instance made through HTTP
// runs on, in the same container, its port answering at the endpoint the instance shows,
// billed across the time Gantry was down; a container labelled as Gantry's with no row is
// removed by the restarted one. Skipped, with the reason, without the engine or root; never
// under GANTRY_TEST_REQUIRE_ENGINES=1 (CI).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type Server } from './helpers/server.ts';
import { engineSkip, startEngine, type TestEngine } from './helpers/engines.ts';
import { readCreds } from './helpers/data-dir.ts';
import { until } from './helpers/wait.ts';
import { openStore } from '../src/store/db.ts';
import { costMicro } from '../src/domain/compute/metering.ts';

const BASE = '/gpu-instance/openapi/v1';
/** one CPU, 1 GB: small enough for a 2-CPU machine; a CPU instance (this machine has no GPU: the driver refuses a GPU workload) */
const PRODUCT = {
  id: 'prd_restart_tiny', name: 'tiny', gpuModel: 'none', cpuPerGpu: 1, memoryPerGpu: 1, diskPerGpu: 10, minRootfs: 1, maxRootfs: 10,
  price: 36_000, spotPrice: 36_000, monthlyPrice: 1_000_000, billingMethods: ['onDemand'],
};
const ORPHAN = 'ins_orphanrestart000000000';

async function call(server: Server, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(server.url + path, {
    method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: text };
  }
}

/** The page the test image's httpd serves, at `endpoint`; '' while nothing answers there. */
async function page(endpoint: string): Promise<string> {
  if (!endpoint) return '';
  return fetch(`http://${endpoint}/index.html`, { signal: AbortSignal.timeout(2000) }).then((r) => r.text(), () => '');
}

test('docker driver: Gantry killed with SIGKILL and started again finds its running container, bills it on, and removes an orphan', {
  skip: engineSkip('dockerd'), timeout: 300_000,
}, async (t) => {
  const engine: TestEngine = await startEngine('dockerd');
  t.after(() => engine.stop());
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-docker-restart-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = {
    GANTRY_DATA_DIR: dataDir, GANTRY_COMPUTE_DRIVER: 'docker', GANTRY_DOCKER_HOST: engine.host, GANTRY_DOCKER_NETWORK: 'gantry-restart',
    GANTRY_RECONCILE_INTERVAL_MS: '200',
  };
  let server = await startServer(env, { watchdogMs: 280_000 });
  t.after(() => server.kill('SIGKILL'));
  const creds = readCreds(dataDir);
  const admin = (method: string, path: string, body?: unknown) => call(server, creds.adminToken, method, path, body);
  const tenant = (method: string, path: string, body?: unknown) => call(server, creds.apiKey, method, path, body);

  assert.equal((await admin('POST', '/admin/v1/gpu/products', PRODUCT)).status, 200);
  assert.equal((await admin('PUT', `/admin/v1/gpu/products/${PRODUCT.id}/inventory/cls_local`, { totalGpus: 1 })).status, 200);
  const topup = await admin('POST', `/admin/v1/teams/${creds.userId}/topups`, { amount: 10_000_000, idempotencyKey: 'docker-restart' });
  assert.equal(topup.status, 200, JSON.stringify(topup.body));

  const created = await tenant('POST', `${BASE}/gpu/instance/create`, {
    name: 'web', productId: PRODUCT.id, gpuNum: 1, rootfsSize: 1, imageUrl: engine.image, kind: 'cpu', clusterId: 'cls_local',
    command: 'httpd -f -p 8080 -h /www', ports: '8080/http',
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const id = created.body.id as string;
  const get = async () => (await tenant('GET', `${BASE}/gpu/instance?instanceId=${id}`)).body;

  // running, and its port answers at the endpoint the instance shows (get and list alike)
  let before: any;
  await until(`${id} runs and answers at its portMappings endpoint`, async () => {
    before = await get();
    return before.status === 'running' && (await page(before.portMappings[0]?.endpoint ?? '')) === 'gantry-test-page\n';
  }, { limitMs: 60_000, everyMs: 100 });
  const runningSeenAt = Date.now();
  const endpoint = before.portMappings[0].endpoint as string;
  assert.match(endpoint, /^127\.0\.0\.1:\d+$/);
  // network.ports: the mappings, each http port with its address through Gantry's proxy (a one-time ticket for the console's Open link)
  assert.deepEqual(before.network.ports.map(({ address: _, ...p }: { address: string }) => p), before.portMappings);
  const proxied = before.network.ports[0].address as string;
  assert.ok(proxied.startsWith(`${server.url}/ports/${id}/8080/?gantry_ticket=`), proxied);
  // and the container's own page through that proxy, signed in by the team's key (gateway/ports)
  const through = await call(server, creds.apiKey, 'GET', `/ports/${id}/8080/index.html`);
  assert.equal(through.body, 'gantry-test-page\n', `through the proxy: ${through.status}`);
  const listed = (await tenant('GET', `${BASE}/gpu/instances`)).body.instances.find((i: { id: string }) => i.id === id);
  assert.deepEqual(listed.portMappings, [{ port: 8080, type: 'http', endpoint }]);
  const container = (await engine.api('GET', `/containers/${id}/json`)).json;
  assert.equal(container.Config.Labels['io.gantry.team'], creds.userId, 'the container names its team');

  await server.kill('SIGKILL');
  // while Gantry is down: its container runs on; a container labelled as Gantry's appears with no row
  assert.equal((await engine.api('GET', `/containers/${id}/json`)).json.State.Status, 'running');
  const orphan = await engine.api('POST', `/containers/create?name=${ORPHAN}`, {
    Image: engine.image, Cmd: ['sleep', '3600'], Labels: { 'io.gantry.managed': 'true', 'io.gantry.id': ORPHAN, 'io.gantry.role': 'instance' },
    HostConfig: { NetworkMode: container.HostConfig.NetworkMode }, // the team's network the driver made
  });
  assert.equal(orphan.status, 201, JSON.stringify(orphan.json));
  assert.equal((await engine.api('POST', `/containers/${ORPHAN}/start`)).status, 204);

  server = await startServer(env, { watchdogMs: 280_000 });
  await until('the restarted Gantry removes the orphan', async () => (await engine.api('GET', `/containers/${ORPHAN}/json`)).status === 404, { limitMs: 30_000, everyMs: 100 });
  const after = await get();
  assert.equal(after.status, 'running');
  assert.deepEqual(after.portMappings, before.portMappings, 'the same endpoint');
  assert.equal(await page(endpoint), 'gantry-test-page\n', 'its port still answers');
  const same = (await engine.api('GET', `/containers/${id}/json`)).json;
  assert.equal(same.Id, container.Id, 'the same container');
  assert.equal(same.State.StartedAt, container.State.StartedAt, 'never restarted');
  const runningSeenAgainAt = Date.now();

  // billed across the restart: stopping bills up to now, the time Gantry was down included
  assert.equal((await tenant('POST', `${BASE}/gpu/instance/stop`, { instanceId: id })).status, 200);
  await until(`${id} exits`, async () => (await get()).status === 'exited', { limitMs: 30_000, everyMs: 100 });
  assert.deepEqual((await get()).portMappings, [{ port: 8080, type: 'http', endpoint: '' }], 'no endpoint once it does not run');
  await server.kill('SIGTERM');
  const store = await openStore({ dataDir, pgliteThread: false });
  try {
    const rows = await store.db.execute(
      `select coalesce(sum(amount_micro), 0)::text as s from ledger_entries where owner_id = '${id}' and kind = 'charge'` as never,
    ) as unknown as { rows: { s: string }[] };
    const charged = BigInt(rows.rows[0]!.s);
    const atLeast = costMicro(Math.floor((runningSeenAgainAt - runningSeenAt) / 1000), 1, BigInt(PRODUCT.price));
    assert.ok(atLeast > 0n, 'the test spanned at least a second');
    assert.ok(charged >= atLeast, `charged ${charged} micro, at least ${atLeast} for the time it ran across the restart`);
  } finally {
    await store.close();
  }
});
