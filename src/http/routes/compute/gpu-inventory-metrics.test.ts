// Products from the docker driver's inventory and instance metrics, through HTTP, on
// nvidia-smi's real output from an H200 server (a stand-in nvidia-smi prints the captured
// fixture of the reading asked: idle, then under load). The engine is a stand-in too, on a
// unix socket: it answers the three reads a usage sample makes (the running containers of
// Gantry with their labels, inspect, and one-shot stats, the stats body a real dockerd answer:
// drivers/docker/fixtures/engine-stats) and records anything else asked, which must be
// nothing (no instance is reconciled here: a create takes its GPUs in the catalogue at once,
// the container is what the stand-in lists).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam, topup } from '../../../../test/helpers/factories.ts';
import { BASE, fixture, type Fixture } from '../../../../test/helpers/compute-fixture.ts';
import { syncDriverInventory } from '../../../domain/compute/gpu-inventory.ts';

const NVIDIA = new URL('../../../drivers/docker/fixtures/nvidia-smi/', import.meta.url);
const DOCKERD_STATS = readFileSync(new URL('../../../drivers/docker/fixtures/engine-stats/dockerd-stats.json', import.meta.url), 'utf8');
const UUID = 'GPU-1ea24dfe-1d62-46e0-93e3-ed192c09b34d';
const H200 = 'prd_h200_141g';
const RTX = 'prd_rtx4090_24g'; // the seeded product, 64 GPUs in cls_local by hand until the driver's inventory says otherwise
const METRICS = '/openapi/v1/metrics/gpu/instance';

let dir: string;
let f: Fixture;
let engine: Server;
/** what the stand-in engine lists as running: Gantry ids → the GPUs their labels say they hold */
const containers = new Map<string, string>();
const unexpected: string[] = [];

/** The stand-in nvidia-smi prints this fixture for --query-gpu. */
function reading(file: 'idle-query.csv' | 'load-query.csv'): void {
  writeFileSync(join(dir, 'reading'), new URL(file, NVIDIA).pathname);
}

function standInEngine(socket: string): Promise<Server> {
  const s = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://engine');
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const m = /^\/v1\.41\/containers\/([^/]+)\/(json|stats)$/.exec(url.pathname);
    if (req.method === 'GET' && url.pathname === '/v1.41/containers/json') {
      const filters = JSON.parse(url.searchParams.get('filters') ?? '{}');
      assert.deepEqual(filters, { label: ['io.gantry.managed=true'], status: ['running'] });
      return json(200, [...containers].map(([id, gpus]) => ({
        Id: `c-${id}`, Names: [`/${id}`], State: 'running',
        Labels: { 'io.gantry.managed': 'true', 'io.gantry.id': id, 'io.gantry.gpus': '1', 'io.gantry.gpu-uuids': gpus },
      })));
    }
    if (req.method === 'GET' && m?.[2] === 'json') {
      // as the engine tells of a container the driver made: its labels, and the GPUs it was given in its environment
      const id = m[1]!.replace(/^c-/, '');
      const gpus = containers.get(id) ?? '';
      return json(200, {
        Id: m[1], HostConfig: { NanoCpus: 500_000_000 }, State: { Status: 'running' },
        Config: { Labels: { 'io.gantry.managed': 'true', 'io.gantry.id': id, 'io.gantry.gpus': '1', 'io.gantry.gpu-uuids': gpus }, Env: [`NVIDIA_VISIBLE_DEVICES=${gpus}`] },
      });
    }
    // the disk-limit watchdog's one reading (the sampling job runs it too): nothing written
    if (req.method === 'GET' && url.pathname === '/v1.41/system/df') {
      return json(200, { Containers: [...containers.keys()].map((id) => ({ Id: `c-${id}`, SizeRw: 0 })), Volumes: [] });
    }
    if (req.method === 'GET' && m?.[2] === 'stats') {
      assert.equal(url.searchParams.get('stream'), 'false');
      return res.writeHead(200, { 'content-type': 'application/json' }).end(DOCKERD_STATS);
    }
    unexpected.push(`${req.method} ${req.url}`);
    json(404, { message: 'page not found' });
  });
  return new Promise((resolve) => s.listen(socket, () => resolve(s)));
}

const sample = () => f.t.services.jobs.runNow('compute.sample');
const product = async (id: string, key = f.owner) => (await key.get(`${BASE}/products`, {})).body.data.find((p: { id: string }) => p.id === id);
const balance = async () => (await f.owner.get('/openapi/v1/billing/balance/detail')).body;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gantry-gpu-inv-'));
  const smi = join(dir, 'nvidia-smi');
  writeFileSync(smi, `#!/bin/sh\ncase "$1" in --query-gpu=*) cat "$(cat '${join(dir, 'reading')}')";; *) cat '${new URL('load-compute-apps.csv', NVIDIA).pathname}';; esac\n`);
  chmodSync(smi, 0o755);
  reading('idle-query.csv');
  engine = await standInEngine(join(dir, 'engine.sock'));
  f = await fixture({ env: { GANTRY_COMPUTE_DRIVER: 'docker', GANTRY_DOCKER_HOST: `unix://${join(dir, 'engine.sock')}`, GANTRY_DOCKER_NVIDIA_SMI: smi } });
  const add = await f.admin.post('/admin/v1/gpu/products', {
    id: H200, name: 'H200 141GB', gpuModel: 'H200', cpuPerGpu: 16, memoryPerGpu: 200, diskPerGpu: 500,
    price: 25_000, spotPrice: 12_500, monthlyPrice: 15_000_000, billingMethods: ['onDemand', 'spot'],
  });
  assert.equal(add.status, 200, JSON.stringify(add.body));
});

after(async () => {
  await f?.close();
  engine?.closeAllConnections();
  await new Promise((r) => engine ? engine.close(r) : r(undefined));
  rmSync(dir, { recursive: true, force: true });
});

let instanceId: string;

test('products from the inventory: the H200 nvidia-smi reads is the H200 product\'s one GPU in the driver\'s cluster; the seeded RTX 4090 has none', async () => {
  assert.equal((await product(RTX)).inventoryState, 'high', 'the operator\'s 64 until the driver is read');
  assert.deepEqual([(await product(H200)).inventoryState, (await product(H200)).regions], ['none', []], 'no inventory row yet');
  await sample();
  const h = await product(H200);
  assert.equal(h.availableDeploy, true);
  assert.equal(h.inventoryState, 'high', '1 of 1 free');
  assert.deepEqual(h.regions, ['local-1']);
  const r = await product(RTX);
  assert.equal(r.availableDeploy, false);
  assert.equal(r.inventoryState, 'none');
  const inv = (await f.admin.get('/admin/v1/gpu/catalogue')).body.inventory;
  assert.deepEqual(inv.filter((i: { clusterId: string }) => i.clusterId === 'cls_local').map((i: any) => [i.productId, i.total]), [[H200, 1], [RTX, 0]]);
  // asking two GPUs of a server with one
  assert.equal((await f.owner.get(`${BASE}/products`, { gpuNum: 2 })).body.data.find((p: { id: string }) => p.id === H200).availableDeploy, false);
  assert.deepEqual((await f.owner.get(`${BASE}/clusters`, {})).body.data.find((c: { id: string }) => c.id === 'cls_local').availableGpuType, ['H200']);
});

test('the operator cannot set the driver\'s cluster\'s inventory by hand (409, the next reading would undo it); other clusters are theirs', async () => {
  const put = await f.admin.put(`/admin/v1/gpu/products/${H200}/inventory/cls_local`, { totalGpus: 8 });
  assert.equal(put.status, 409, JSON.stringify(put.body));
  assert.equal(put.body.reason, 'CONFLICT');
  assert.match(put.body.message, /inventory of cluster cls_local follows the GPUs the compute driver reads/);
  assert.equal(put.body.metadata.clusterId, 'cls_local');
  assert.equal((await f.admin.post('/admin/v1/gpu/clusters', { id: 'cls_other', name: 'other' })).status, 200);
  assert.equal((await f.admin.put(`/admin/v1/gpu/products/${H200}/inventory/cls_other`, { totalGpus: 0 })).status, 200);
  await sample();
  assert.equal((await product(H200)).inventoryState, 'high', 'still the server\'s one GPU');
});

test('a CPU product (gpuModel CPU) stays the operator\'s on a GPU server: its PUT is taken and a reading leaves it, so CPU instances run beside the GPUs', async () => {
  const add = await f.admin.post('/admin/v1/gpu/products', {
    id: 'prd_cpu', name: 'CPU 16 cores', gpuModel: 'CPU', cpuPerGpu: 16, memoryPerGpu: 32, diskPerGpu: 100,
    price: 500, spotPrice: 250, monthlyPrice: 300_000, billingMethods: ['onDemand'],
  });
  assert.equal(add.status, 200, JSON.stringify(add.body));
  const put = await f.admin.put('/admin/v1/gpu/products/prd_cpu/inventory/cls_local', { totalGpus: 4 });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  await sample();
  const p = await product('prd_cpu');
  assert.deepEqual([p.availableDeploy, p.inventoryState], [true, 'high'], 'the operator\'s 4 stay');
  const inv = (await f.admin.get('/admin/v1/gpu/catalogue')).body.inventory.find((i: any) => i.productId === 'prd_cpu' && i.clusterId === 'cls_local');
  assert.equal(inv.total, 4);
  assert.equal((await product(H200)).inventoryState, 'high', 'the H200 is not the CPU product\'s');
});

test('an instance taking the GPU leaves none free; a second create is refused with INSUFFICIENT_RESOURCE before anything is charged', async () => {
  const r = await f.owner.post(`${BASE}/gpu/instance/create`, { name: 'h', productId: H200, gpuNum: 1, rootfsSize: 50, imageUrl: 'img:1', kind: 'gpu', clusterId: 'cls_local' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  instanceId = r.body.id;
  const h = await product(H200);
  assert.equal(h.availableDeploy, false);
  assert.equal(h.inventoryState, 'none');
  const before = await balance();
  const listed = (await f.owner.get(`${BASE}/gpu/instances`, {})).body.total;
  const second = await f.owner.post(`${BASE}/gpu/instance/create`, { name: 'h2', productId: H200, gpuNum: 1, rootfsSize: 50, imageUrl: 'img:1', kind: 'gpu', clusterId: 'cls_local' });
  assert.equal(second.status, 400, JSON.stringify(second.body));
  assert.equal(second.body.reason, 'INSUFFICIENT_RESOURCE');
  assert.deepEqual(await balance(), before, 'nothing charged nor held');
  assert.equal((await f.owner.get(`${BASE}/gpu/instances`, {})).body.total, listed, 'no instance made');
  await sample(); // a reading does not give the held GPU back
  assert.equal((await product(H200)).inventoryState, 'none');
  assert.deepEqual(unexpected, [], 'the engine was only read');
});

test('metrics: the instance\'s GPU idle, then under load (100 %), its CPU and memory from the engine\'s stats, in 15 s buckets', async () => {
  containers.set(instanceId, UUID);
  containers.set('wk-notaninstance', 'GPU-22222222-2222'); // a serverless worker: not an instance, not stored
  // sample at the start of a 30 s bucket (bucket starts are multiples of the interval)
  f.t.clock.set(Math.ceil(f.t.clock.nowMs() / 30_000) * 30_000 + 30_000);
  const t0 = f.t.clock.nowMs() / 1000;
  reading('idle-query.csv');
  await sample();
  f.t.clock.advance(15_000);
  reading('load-query.csv');
  await sample();
  f.t.clock.advance(5_000);
  const m = await f.owner.get(METRICS, { instanceId, startTime: t0, endTime: t0 + 20, interval: 15 });
  assert.equal(m.status, 200, JSON.stringify(m.body));
  const at = (...vs: number[]) => vs.map((value, i) => ({ timestamp: String(t0 + 15 * i), value }));
  assert.deepEqual(m.body.gpuUtilization, { avg: at(0, 100), gpuIds: [{ gpuId: UUID, items: at(0, 100) }] });
  // memory.used / memory.total: 0 of 143771 MiB idle, 20085 under load
  assert.deepEqual(m.body.gpuMemUtilization, { avg: at(0, 13.97), gpuIds: [{ gpuId: UUID, items: at(0, 13.97) }] });
  // dockerd's stats of a container spinning on its 0.5 CPU: all of it; 0.27 % of its 256 MiB
  assert.deepEqual(m.body.cpuUtilization, at(100, 100));
  assert.deepEqual(m.body.memUtilization, at(0.27, 0.27));
  assert.deepEqual(m.body.rootDiskUtilization, [], 'the engine does not bound a root disk: not measured');
  // a 30 s interval: one bucket, the two samples' average
  const wide = await f.owner.get(METRICS, { instanceId, startTime: t0, endTime: t0 + 20, interval: 30 });
  assert.deepEqual(wide.body.gpuUtilization.avg, [{ timestamp: String(t0), value: 50 }]);
  // defaults: the last 60 s, 15 s buckets
  const d = await f.owner.get(METRICS, { instanceId });
  assert.equal(d.status, 200);
  assert.deepEqual(d.body.gpuUtilization.avg, at(0, 100));
  // a range before the samples
  assert.deepEqual((await f.owner.get(METRICS, { instanceId, startTime: t0 - 600, endTime: t0 - 1 })).body.gpuUtilization, { avg: [], gpuIds: [] });
  assert.deepEqual(unexpected, []);
});

test('metrics: bad ranges are refused naming the field; missing ones take the defaults', async () => {
  const now = Math.floor(f.t.clock.nowMs() / 1000);
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{ interval: 5 }, 'interval', /at least 15/],
    [{ interval: 0 }, 'interval', /at least 15/],
    [{ startTime: now, endTime: now - 60 }, 'startTime', /must not be after endTime/],
    [{ startTime: now + 60 }, 'startTime', /must not be after endTime/],
    [{ startTime: now - 8 * 86_400, endTime: now }, 'startTime', /at most 604800 s/],
    [{ startTime: 'yesterday' }, 'startTime', /./],
    [{ endTime: -1 }, 'endTime', /./],
  ];
  for (const [q, field, rule] of cases) {
    const r = await f.owner.get(METRICS, { instanceId, ...q });
    assert.equal(r.status, 400, `${JSON.stringify(q)} → ${JSON.stringify(r.body)}`);
    assert.equal(r.body.reason, 'VALIDATOR_PARAM', JSON.stringify(r.body));
    assert.equal(r.body.metadata.field, field, JSON.stringify(r.body));
    assert.match(r.body.message, rule);
  }
  const missing = await f.owner.get(METRICS, {});
  assert.equal(missing.status, 400);
  assert.equal(missing.body.metadata.field, 'instanceId');
  // exactly 7 days is allowed
  assert.equal((await f.owner.get(METRICS, { instanceId, startTime: now - 7 * 86_400, endTime: now })).status, 200);
});

test('metrics: another team\'s instance is not found (as get); an unknown one too', async () => {
  const other = await createTeam(f.t.app, f.t.creds.adminToken);
  await topup(f.t.app, f.t.creds.adminToken, other.userId, 1_000_000);
  const key = as(f.t.app, other.owner.apiKey);
  const r = await key.get(METRICS, { instanceId });
  assert.equal(r.status, 400);
  assert.equal(r.body.reason, 'RESOURCE_NOT_FOUND');
  assert.deepEqual(r.body, (await key.get(`${BASE}/gpu/instance`, { instanceId })).body, 'the same answer as get');
  assert.equal((await f.owner.get(METRICS, { instanceId: 'ins_nope' })).body.reason, 'RESOURCE_NOT_FOUND');
});

test('metrics: samples are kept 7 days', async () => {
  const t0 = Math.floor(f.t.clock.nowMs() / 1000) - 60;
  assert.ok((await f.owner.get(METRICS, { instanceId, startTime: t0, endTime: t0 + 60 })).body.gpuUtilization.avg.length > 0);
  containers.clear();
  f.t.clock.advance(7 * 86_400_000 + 3_600_000);
  await sample();
  assert.deepEqual((await f.owner.get(METRICS, { instanceId, startTime: t0, endTime: t0 + 60 })).body.gpuUtilization, { avg: [], gpuIds: [] });
});

test('a docker server without GPUs (no nvidia-smi) leaves its cluster\'s inventory, and the PUT, to the operator', async () => {
  const cpu = await fixture({ env: { GANTRY_COMPUTE_DRIVER: 'docker', GANTRY_DOCKER_HOST: `unix://${join(dir, 'engine.sock')}`, GANTRY_DOCKER_NVIDIA_SMI: join(dir, 'absent') } });
  try {
    await cpu.t.services.jobs.runNow('compute.sample');
    assert.equal((await cpu.owner.get(`${BASE}/products`, {})).body.data.find((p: { id: string }) => p.id === RTX).inventoryState, 'high', 'the seeded 64 stay');
    assert.equal((await cpu.admin.put(`/admin/v1/gpu/products/${RTX}/inventory/cls_local`, { totalGpus: 2 })).status, 200);
    const inv = (await cpu.admin.get('/admin/v1/gpu/catalogue')).body.inventory.find((i: any) => i.productId === RTX && i.clusterId === 'cls_local');
    assert.equal(inv.total, 2);
  } finally {
    await cpu.close();
  }
});

test('GPUs listed without a model where nvidia-smi cannot name them: the inventory is left as it was and the reason is said', async () => {
  const listed = await fixture({ env: {
    GANTRY_COMPUTE_DRIVER: 'docker', GANTRY_DOCKER_HOST: `unix://${join(dir, 'engine.sock')}`, GANTRY_DOCKER_NVIDIA_SMI: join(dir, 'absent'),
    GANTRY_DOCKER_GPUS: UUID,
  } });
  try {
    const driver = listed.t.services.compute.driver;
    await assert.rejects(syncDriverInventory(listed.t.services.compute), new RegExp(`model of GPU ${UUID} is unknown.*${UUID}=NVIDIA H200`));
    assert.ok(driver.inventory, 'the docker driver has an inventory');
    await listed.t.services.jobs.runNow('compute.sample');
    assert.equal((await listed.owner.get(`${BASE}/products`, {})).body.data.find((p: { id: string }) => p.id === RTX).inventoryState, 'high', 'the seeded 64 stay');
  } finally {
    await listed.close();
  }
});

test('the sim driver measures nothing: every series is empty, and the inventory stays the operator\'s', async () => {
  const sim = await fixture();
  try {
    const id = await sim.create();
    await sim.until(id, 'running');
    await sim.t.services.jobs.runNow('compute.sample');
    const m = await sim.owner.get(METRICS, { instanceId: id });
    assert.equal(m.status, 200, JSON.stringify(m.body));
    assert.deepEqual(m.body, {
      cpuUtilization: [], memUtilization: [], rootDiskUtilization: [],
      gpuUtilization: { avg: [], gpuIds: [] }, gpuMemUtilization: { avg: [], gpuIds: [] },
    });
    assert.equal((await sim.admin.put(`/admin/v1/gpu/products/${RTX}/inventory/cls_local`, { totalGpus: 8 })).status, 200);
  } finally {
    await sim.close();
  }
});
