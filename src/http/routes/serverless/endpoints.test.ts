// The serverless management API through HTTP: create → get → list (compat.md's numeric
// strings exactly) → update (full replacement) → delete; defaults; every limit; appName
// rules and races; teams and roles; admission of the first workers' GPU time.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam, topup, type Team } from '../../../../test/helpers/factories.ts';
import { endpointWorkers, endpoints } from '../../../store/schema-serverless.ts';

const BASE = '/gpu-instance/openapi/v1';
const PRODUCT = 'prd_rtx4090_24g';
const PUBLIC = 'https://gantry.example.com';

let t: TestApp;
let team: Team;
let owner: ReturnType<typeof as>;

before(async () => {
  t = await buildTestApp({ env: { GANTRY_PUBLIC_URL: PUBLIC } });
  team = await createTeam(t.app, t.creds.adminToken);
  await topup(t.app, t.creds.adminToken, team.userId, 10_000_000);
  owner = as(t.app, team.owner.apiKey);
});
after(() => t.close());

/** A team with money, and its Owner's client. */
async function newTeam(units = 10_000_000) {
  const tm = await createTeam(t.app, t.creds.adminToken);
  if (units) await topup(t.app, t.creds.adminToken, tm.userId, units);
  return { team: tm, owner: as(t.app, tm.owner.apiKey) };
}

const minimal = (over: Record<string, unknown> = {}) => ({
  endpoint: { image: { image: 'ghcr.io/acme/echo:1' }, ports: [{ port: 8080 }], products: [{ id: PRODUCT }], ...over },
});

async function create(client: ReturnType<typeof as>, body: unknown): Promise<string> {
  const r = await client.post(`${BASE}/endpoint/create`, body);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.match(r.body.id, /^ep-[0-9a-z]{22}$/);
  return r.body.id;
}

async function get(client: ReturnType<typeof as>, id: string) {
  const r = await client.get(`${BASE}/endpoint`, { id });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.endpoint;
}

function assertRefused(r: { status: number; body: any }, reason: string, field?: string, message?: RegExp): void {
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.equal(r.body.reason, reason, JSON.stringify(r.body));
  if (field !== undefined) assert.equal(r.body.metadata.field, field, JSON.stringify(r.body));
  if (message) assert.match(r.body.message, message);
}

const FULL = {
  name: 'chat', appName: 'chat-app',
  workerConfig: { minNum: 1, maxNum: 2, freeTimeout: 30, maxConcurrent: 4, gpuNum: 1, requestTimeout: 60, cudaVersion: '12.2' },
  ports: [{ port: 8000 }],
  policy: { type: 'concurrency', value: 5 },
  image: { image: 'vllm/vllm-openai:v0.6.4', authId: '', command: '--model qwen' },
  products: [{ id: PRODUCT }],
  rootfsSize: 50,
  volumeMounts: [{ type: 'local', size: 30, mountPath: '/cache' }],
  envs: [{ key: 'MODEL', value: 'qwen' }],
  healthy: { path: '/health', initialDelay: 5, period: 10, timeout: 2, successThreshold: 1, failureThreshold: 3 },
};

test('create → get → list: the endpoint object, with freeTimeout, maxConcurrent and policy.value as strings, ports[].port an integer in get and a string in list', async () => {
  const { owner: o, team: tm } = await newTeam();
  const changed = t.services.ctx.changes.next('endpoint.changed', (c) => c.appName === 'chat-app');
  const id = await create(o, { endpoint: FULL });
  const change = await changed;
  assert.deepEqual(change, { type: 'endpoint.changed', teamId: tm.userId, endpointId: id, appName: 'chat-app' });

  const expected = {
    id, name: 'chat', appName: 'chat-app',
    state: { state: 'initializing', error: '', message: '' },
    url: `${PUBLIC}/serverless/chat-app`,
    workerConfig: { minNum: 1, maxNum: 2, freeTimeout: '30', maxConcurrent: '4', gpuNum: 1, requestTimeout: 60, cudaVersion: '12.2' },
    policy: { type: 'concurrency', value: '5' },
    image: { image: 'vllm/vllm-openai:v0.6.4', authId: '', command: '--model qwen' },
    rootfsSize: 50,
    volumeMounts: [{ type: 'local', id: '', size: 30, mountPath: '/cache' }],
    envs: [{ key: 'MODEL', value: 'qwen' }],
    workers: [],
    products: [{ id: PRODUCT }],
    healthy: { path: '/health', initialDelay: 5, period: 10, timeout: 2, successThreshold: 1, failureThreshold: 3 },
    log: `${PUBLIC}/gpu-instance/openapi/v1/endpoint/log?id=${id}`,
  };
  assert.deepEqual(await get(o, id), { ...expected, ports: [{ port: 8000 }] });
  const list = await o.get(`${BASE}/endpoints`, { pageSize: 10, pageNum: 1 });
  assert.equal(list.status, 200, JSON.stringify(list.body));
  assert.deepEqual(list.body, { endpoints: [{ ...expected, ports: [{ port: '8000' }] }], total: 1 });

  // the row the reconciler works from
  const [row] = await t.store.db.select().from(endpoints).where(eq(endpoints.id, id));
  assert.equal(row!.desiredWorkers, 1);
  assert.equal(row!.specVersion, 1);
  assert.equal(row!.priceUnits, 3500n);
  assert.equal(row!.productName, 'RTX 4090 24GB');
  assert.equal(row!.nextReconcileAtMs, t.clock.nowMs());
  assert.deepEqual([row!.teamId, row!.memberId, row!.keyId], [tm.userId, tm.owner.memberId, tm.owner.keyId]);
  assert.equal(row!.spec.clusterId, 'cls_local');
  assert.equal(row!.spec.port, 8000);

  // workers, oldest first, as the interface shows them
  const now = t.clock.nowMs();
  await t.store.db.insert(endpointWorkers).values([
    { id: 'wk-b', endpointId: id, teamId: row!.teamId, specVersion: 1, state: 'running', stateSinceMs: now, healthy: true, createdAt: new Date(now - 1000) },
    { id: 'wk-a', endpointId: id, teamId: row!.teamId, specVersion: 1, state: 'failed', stateError: 'ImagePullBackOff', stateMessage: 'cannot pull', stateSinceMs: now, createdAt: new Date(now) },
  ]);
  const g = await get(o, id);
  assert.deepEqual(g.workers, [
    { id: 'wk-b', state: { state: 'running', error: '', message: '' }, log: `${PUBLIC}/gpu-instance/openapi/v1/endpoint/worker/log?id=wk-b`, metrics: '', healthy: true },
    { id: 'wk-a', state: { state: 'failed', error: 'ImagePullBackOff', message: 'cannot pull' }, log: `${PUBLIC}/gpu-instance/openapi/v1/endpoint/worker/log?id=wk-a`, metrics: '', healthy: false },
  ]);
  assert.deepEqual((await o.get(`${BASE}/endpoints`)).body.endpoints[0].workers, g.workers);
});

test('defaults: min 1, max 3, freeTimeout 60, maxConcurrent 1, gpuNum 1, requestTimeout 120, cudaVersion "", policy queue 4, health /, appName and name the id', async () => {
  const id = await create(owner, minimal());
  const e = await get(owner, id);
  assert.equal(e.appName, id);
  assert.equal(e.name, id);
  assert.equal(e.url, `${PUBLIC}/serverless/${id}`);
  assert.deepEqual(e.workerConfig, { minNum: 1, maxNum: 3, freeTimeout: '60', maxConcurrent: '1', gpuNum: 1, requestTimeout: 120, cudaVersion: '' });
  assert.deepEqual(e.policy, { type: 'queue', value: '4' });
  assert.deepEqual(e.healthy, { path: '/', initialDelay: 0, period: 10, timeout: 5, successThreshold: 1, failureThreshold: 3 });
  assert.deepEqual(e.image, { image: 'ghcr.io/acme/echo:1', authId: '', command: '' });
  assert.equal(e.rootfsSize, 100, 'the free root disk size');
  assert.deepEqual([e.envs, e.volumeMounts, e.products, e.ports], [[], [], [{ id: PRODUCT }], [{ port: 8080 }]]);
  assert.equal('clusterID' in e, false, 'clusterID only with network storage');
  // a local volume without a size gets 30; minNum 0 serves at once (scaled to zero); maxNum follows a larger minNum
  const z = await get(owner, await create(owner, minimal({ workerConfig: { minNum: 0 }, volumeMounts: [{ type: 'local', mountPath: '/scratch' }] })));
  assert.equal(z.state.state, 'serving');
  assert.deepEqual(z.volumeMounts, [{ type: 'local', id: '', size: 30, mountPath: '/scratch' }]);
  assert.equal((await get(owner, await create(owner, minimal({ workerConfig: { minNum: 5 } })))).workerConfig.maxNum, 5);
  // `env` is an alias of `envs`, and strings of digits are integers
  const a = await get(owner, await create(owner, minimal({ env: [{ key: 'A', value: '1' }], ports: [{ port: '9000' }], workerConfig: { freeTimeout: '90' } })));
  assert.deepEqual([a.envs, a.ports, a.workerConfig.freeTimeout], [[{ key: 'A', value: '1' }], [{ port: 9000 }], '90']);
});

test('update replaces the configuration in full; a missing required field is a 400 that changes nothing', async () => {
  const { owner: o, team: tm } = await newTeam();
  const id = await create(o, { endpoint: FULL });
  const before = await get(o, id);
  const body = {
    id,
    workerConfig: { minNum: 2, maxNum: 4, freeTimeout: 120, maxConcurrent: 2, gpuNum: 2, requestTimeout: 300 },
    ports: [{ port: '7860' }],
    policy: { type: 'queue', value: 10 },
    image: { image: 'ghcr.io/acme/app:2', command: 'serve' },
  };
  // every required field, one at a time
  for (const [path, drop] of [
    ['workerConfig.minNum', (b: any) => delete b.workerConfig.minNum], ['workerConfig.requestTimeout', (b: any) => delete b.workerConfig.requestTimeout],
    ['ports', (b: any) => delete b.ports], ['policy', (b: any) => delete b.policy], ['image', (b: any) => delete b.image],
    ['image.image', (b: any) => delete b.image.image], ['id', (b: any) => delete b.id], ['policy.value', (b: any) => delete b.policy.value],
  ] as const) {
    const b = structuredClone(body);
    drop(b);
    assertRefused(await o.post(`${BASE}/endpoint/update`, b), 'VALIDATOR_PARAM', path, /is required/);
  }
  assert.deepEqual(await get(o, id), before, 'refused updates change nothing');

  const changed = t.services.ctx.changes.next('endpoint.changed', (c) => c.endpointId === id);
  const r = await o.post(`${BASE}/endpoint/update`, body);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body, {});
  assert.deepEqual(await changed, { type: 'endpoint.changed', teamId: tm.userId, endpointId: id, appName: 'chat-app' });
  const e = await get(o, id);
  assert.deepEqual(e, {
    ...before,
    workerConfig: { minNum: 2, maxNum: 4, freeTimeout: '120', maxConcurrent: '2', gpuNum: 2, requestTimeout: 300, cudaVersion: '' },
    ports: [{ port: 7860 }],
    policy: { type: 'queue', value: '10' },
    image: { image: 'ghcr.io/acme/app:2', authId: '', command: 'serve' },
    // the optional fields of the interface's update table take their defaults when left out
    volumeMounts: [], envs: [], healthy: { path: '/', initialDelay: 0, period: 10, timeout: 5, successThreshold: 1, failureThreshold: 3 },
    // name, appName, products and rootfsSize (not in that table) are kept
  });
  const [row] = await t.store.db.select().from(endpoints).where(eq(endpoints.id, id));
  assert.equal(row!.specVersion, 2);
  assert.equal(row!.desiredWorkers, 2, 'desired workers moved into [minNum, maxNum]');

  // an empty image keeps the image (interface.md: 0-511 on update); a local volume is 30 GB on update
  const again = { ...body, image: { image: '' }, volumeMounts: [{ type: 'local', size: 30, mountPath: '/c' }] };
  assert.equal((await o.post(`${BASE}/endpoint/update`, again)).status, 200);
  const e2 = await get(o, id);
  assert.equal(e2.image.image, 'ghcr.io/acme/app:2');
  assert.deepEqual(e2.volumeMounts, [{ type: 'local', id: '', size: 30, mountPath: '/c' }]);
  assertRefused(await o.post(`${BASE}/endpoint/update`, { ...again, volumeMounts: [{ type: 'local', size: 50, mountPath: '/c' }] }),
    'VALIDATOR_PARAM', 'volumeMounts[0].size', /is fixed on update: 30 \(GB\), got 50/);

  // a stopped or failed endpoint starts again on update
  await t.store.db.update(endpoints).set({ state: 'stopped', stateMessage: 'balance_not_enough', desiredWorkers: 0 }).where(eq(endpoints.id, id));
  assert.equal((await o.post(`${BASE}/endpoint/update`, body)).status, 200);
  const restarted = await get(o, id);
  assert.deepEqual(restarted.state, { state: 'initializing', error: '', message: '' });
  const [row2] = await t.store.db.select().from(endpoints).where(eq(endpoints.id, id));
  assert.equal(row2!.desiredWorkers, 2);
  assert.equal(row2!.specVersion, 4);
  assert.equal(row2!.nextReconcileAtMs, t.clock.nowMs());
});

test('delete: terminating at once (the reconciler removes it later), then no update; delete again is a no-op', async () => {
  const { owner: o } = await newTeam();
  const id = await create(o, minimal({ appName: 'going' }));
  const changed = t.services.ctx.changes.next('endpoint.changed', (c) => c.endpointId === id);
  const r = await o.post(`${BASE}/endpoint/delete`, { name: id });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body, {});
  assert.equal((await changed).appName, 'going');
  const e = await get(o, id);
  assert.equal(e.state.state, 'terminating');
  const [row] = await t.store.db.select().from(endpoints).where(eq(endpoints.id, id));
  assert.deepEqual([row!.desiredWorkers, row!.nextReconcileAtMs], [0, t.clock.nowMs()]);
  const u = await o.post(`${BASE}/endpoint/update`, {
    id, workerConfig: { minNum: 1, maxNum: 1, freeTimeout: 1, maxConcurrent: 1, gpuNum: 1, requestTimeout: 1 }, ports: [{ port: 80 }],
    policy: { type: 'queue', value: 1 }, image: { image: 'x' },
  });
  assertRefused(u, 'VALIDATOR_PARAM', 'id', /cannot update endpoint .*: it is terminating/);
  assert.equal(u.body.metadata.state, 'terminating');
  assert.equal((await o.post(`${BASE}/endpoint/delete`, { name: id })).status, 200);
  // once the reconciler has removed the row, it is not found
  await t.store.db.delete(endpoints).where(eq(endpoints.id, id));
  assertRefused(await o.get(`${BASE}/endpoint`, { id }), 'SERVERLESS_ENDPOINT_NOT_FOUND');
  assertRefused(await o.post(`${BASE}/endpoint/delete`, { name: id }), 'SERVERLESS_ENDPOINT_NOT_FOUND');
});

test('every limit, violated once: 400 VALIDATOR_PARAM naming the field and its range, nothing written', async () => {
  const { owner: o } = await newTeam();
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{ workerConfig: { minNum: 1001 } }, 'endpoint.workerConfig.minNum', /0-1000, got 1001/],
    [{ workerConfig: { minNum: -1 } }, 'endpoint.workerConfig.minNum', /0-1000, got -1/],
    [{ workerConfig: { maxNum: 1001 } }, 'endpoint.workerConfig.maxNum', /1-1000, got 1001/],
    [{ workerConfig: { maxNum: 0 } }, 'endpoint.workerConfig.maxNum', /1-1000, got 0/],
    [{ workerConfig: { minNum: 3, maxNum: 2 } }, 'endpoint.workerConfig.maxNum', /at least minNum \(3\), got 2/],
    [{ workerConfig: { freeTimeout: 0 } }, 'endpoint.workerConfig.freeTimeout', /1-1000, got 0/],
    [{ workerConfig: { freeTimeout: '1001' } }, 'endpoint.workerConfig.freeTimeout', /1-1000, got 1001/],
    [{ workerConfig: { maxConcurrent: 1001 } }, 'endpoint.workerConfig.maxConcurrent', /1-1000, got 1001/],
    [{ workerConfig: { gpuNum: 9 } }, 'endpoint.workerConfig.gpuNum', /1-8, got 9/],
    [{ workerConfig: { gpuNum: 0 } }, 'endpoint.workerConfig.gpuNum', /1-8, got 0/],
    [{ workerConfig: { requestTimeout: 1801 } }, 'endpoint.workerConfig.requestTimeout', /1-1800, got 1801/],
    [{ workerConfig: { cudaVersion: '11.8' } }, 'endpoint.workerConfig.cudaVersion', /"" \(any\) or one of 12\.1, 12\.2/],
    [{ policy: { type: 'queue', value: 1001 } }, 'endpoint.policy.value', /1-1000, got 1001/],
    [{ policy: { type: 'concurrency', value: 0 } }, 'endpoint.policy.value', /1-1000, got 0/],
    [{ policy: { type: 'latency', value: 1 } }, 'endpoint.policy.type', /queue, concurrency/],
    [{ rootfsSize: 9 }, 'endpoint.rootfsSize', /10-100, got 9/],
    [{ rootfsSize: 101 }, 'endpoint.rootfsSize', /10-100, got 101/],
    [{ volumeMounts: [{ type: 'local', size: 301, mountPath: '/d' }] }, 'endpoint.volumeMounts[0].size', /10-300, got 301/],
    [{ volumeMounts: [{ type: 'local', size: 9, mountPath: '/d' }] }, 'endpoint.volumeMounts[0].size', /10-300, got 9/],
    [{ volumeMounts: [{ type: 'disk', mountPath: '/d' }] }, 'endpoint.volumeMounts.0.type', /local, network/],
    [{ volumeMounts: [{ type: 'local', mountPath: 'd' }] }, 'endpoint.volumeMounts[0].mountPath', /absolute/],
    [{ volumeMounts: [{ type: 'local', mountPath: '/a' }, { type: 'local', mountPath: '/b' }] }, 'endpoint.volumeMounts[1]', /at most one local volume/],
    [{ ports: [{ port: 2222 }] }, 'endpoint.ports[0].port', /reserved/],
    [{ ports: [{ port: 65536 }] }, 'endpoint.ports[0].port', /1-65535/],
    [{ ports: [{ port: 0 }] }, 'endpoint.ports[0].port', /1-65535/],
    [{ ports: [{ port: 80 }, { port: 81 }] }, 'endpoint.ports', /exactly one port, got 2/],
    [{ ports: [] }, 'endpoint.ports', /exactly one port, got 0/],
    [{ image: { image: '' } }, 'endpoint.image.image', /1-511 characters, got 0/],
    [{ image: { image: 'x'.repeat(512) } }, 'endpoint.image.image', /1-511 characters, got 512/],
    [{ image: { image: 'x', authId: 'a'.repeat(256) } }, 'endpoint.image.authId', /0-255/],
    [{ image: { image: 'x', command: 'c'.repeat(2048) } }, 'endpoint.image.command', /0-2047/],
    [{ clusterID: 'c'.repeat(256) }, 'endpoint.clusterID', /0-255/],
    [{ volumeMounts: [{ type: 'local', mountPath: `/${'m'.repeat(255)}` }] }, 'endpoint.volumeMounts[0].mountPath', /1-255/],
    [{ name: 'n'.repeat(256) }, 'endpoint.name', /0-255/],
    [{ envs: [{ key: 'k'.repeat(512), value: '' }] }, 'endpoint.envs[0].key', /0-511/],
    [{ env: [{ key: 'K', value: 'v'.repeat(4096) }] }, 'endpoint.env[0].value', /0-4095/],
    [{ healthy: { path: 'health' } }, 'endpoint.healthy.path', /must start with \//],
    [{ healthy: { path: '/', period: 0 } }, 'endpoint.healthy.period', /1-3600, got 0/],
    [{ healthy: { path: '/', failureThreshold: 101 } }, 'endpoint.healthy.failureThreshold', /1-100, got 101/],
    [{ products: [] }, 'endpoint.products', /exactly one GPU product, got 0/],
    [{ products: [{ id: PRODUCT }, { id: PRODUCT }] }, 'endpoint.products', /exactly one GPU product, got 2/],
    [{ workerConfig: { minNum: 2 ** 31 } }, 'endpoint.workerConfig.minNum', /integer/],
    [{ workerConfig: { minNum: '1.5' } }, 'endpoint.workerConfig.minNum', /integer/],
    [{ image: { image: 'a\u0000b' } }, 'endpoint.image.image', /NUL|U\+0000/],
  ];
  for (const [over, field, message] of cases) {
    const { ports, products, image, ...rest } = over as Record<string, unknown>;
    const body = minimal({ ...(ports ? { ports } : {}), ...(products ? { products } : {}), ...(image ? { image } : {}), ...rest });
    const r = await o.post(`${BASE}/endpoint/create`, body);
    assertRefused(r, 'VALIDATOR_PARAM', field, message);
  }
  assert.equal((await o.get(`${BASE}/endpoints`)).body.total, 0, 'nothing was written');
});

test('the product: exactly one that exists and is on sale; price per GPU-hour fixed at create and each update', async () => {
  const { owner: o } = await newTeam();
  const r = await o.post(`${BASE}/endpoint/create`, minimal({ products: [{ id: 'prd_nope' }] }));
  assertRefused(r, 'RESOURCE_NOT_FOUND', undefined, /product prd_nope not found/);
  const admin = as(t.app, t.creds.adminToken);
  const product = (id: string, price: number, available = true) => admin.post('/admin/v1/gpu/products', {
    id, name: `GPU ${id}`, gpuModel: 'X', cpuPerGpu: 8, memoryPerGpu: 32, diskPerGpu: 100, price, spotPrice: 1, monthlyPrice: 1,
    billingMethods: ['onDemand'], available,
  });
  assert.equal((await product('prd_sl_off', 100, false)).status, 200);
  assertRefused(await o.post(`${BASE}/endpoint/create`, minimal({ products: [{ id: 'prd_sl_off' }] })), 'RESOURCE_NOT_FOUND', undefined, /prd_sl_off is not available/);
  // on sale but in no cluster
  assert.equal((await product('prd_sl_new', 1000)).status, 200);
  const none = await o.post(`${BASE}/endpoint/create`, minimal({ products: [{ id: 'prd_sl_new' }] }));
  assert.equal(none.body.reason, 'INSUFFICIENT_RESOURCE', JSON.stringify(none.body));
  assert.equal((await admin.put('/admin/v1/gpu/products/prd_sl_new/inventory/cls_local', { totalGpus: 8 })).status, 200);
  const id = await create(o, minimal({ products: [{ id: 'prd_sl_new' }] }));
  const price = async () => (await t.store.db.select().from(endpoints).where(eq(endpoints.id, id)))[0]!.priceUnits;
  assert.equal(await price(), 1000n);
  assert.equal((await product('prd_sl_new', 1200)).status, 200);
  assert.equal(await price(), 1000n, 'fixed at create');
  const u = await o.post(`${BASE}/endpoint/update`, {
    id, workerConfig: { minNum: 1, maxNum: 1, freeTimeout: 1, maxConcurrent: 1, gpuNum: 1, requestTimeout: 1 }, ports: [{ port: 80 }],
    policy: { type: 'queue', value: 1 }, image: { image: 'x' },
  });
  assert.equal(u.status, 200, JSON.stringify(u.body));
  assert.equal(await price(), 1200n, 'the price as of the update');
  assert.deepEqual((await get(o, id)).products, [{ id: 'prd_sl_new' }]);
});

test('network storage: clusterID must be the storage\'s cluster; the view shows clusterID and no size for it', async () => {
  const { owner: o } = await newTeam();
  const admin = as(t.app, t.creds.adminToken);
  assert.equal((await admin.post('/admin/v1/gpu/clusters', { id: 'cls_sl_b', name: 'b', supportNetworkStorage: true })).status, 200);
  assert.equal((await admin.put(`/admin/v1/gpu/products/${PRODUCT}/inventory/cls_sl_b`, { totalGpus: 8 })).status, 200);
  const sid = (await o.post(`${BASE}/networkstorage/create`, { storageName: 'models', clusterId: 'cls_sl_b', storageSize: 10 })).body.storageId;
  const mount = [{ type: 'network', id: sid, mountPath: '/models' }];
  assertRefused(await o.post(`${BASE}/endpoint/create`, minimal({ volumeMounts: mount })), 'VALIDATOR_PARAM', 'endpoint.clusterID', /required when a network storage is mounted: .* cls_sl_b/);
  assertRefused(await o.post(`${BASE}/endpoint/create`, minimal({ volumeMounts: mount, clusterID: 'cls_local' })), 'VALIDATOR_PARAM', 'endpoint.clusterID', /must be the cluster of the mounted network storage, cls_sl_b, got cls_local/);
  assertRefused(await o.post(`${BASE}/endpoint/create`, minimal({ volumeMounts: [{ type: 'network', id: 'nst_nope', mountPath: '/m' }], clusterID: 'cls_sl_b' })), 'NETWORK_STORAGE_NOT_FOUND');
  assertRefused(await o.post(`${BASE}/endpoint/create`, minimal({ clusterID: 'cls_nope' })), 'RESOURCE_NOT_FOUND', undefined, /cluster cls_nope/);
  const id = await create(o, minimal({ volumeMounts: [...mount, { type: 'local', size: 20, mountPath: '/tmp/x' }], clusterID: 'cls_sl_b' }));
  const e = await get(o, id);
  assert.equal(e.clusterID, 'cls_sl_b');
  assert.deepEqual(e.volumeMounts, [{ type: 'network', id: sid, mountPath: '/models' }, { type: 'local', id: '', size: 20, mountPath: '/tmp/x' }]);
  // another team's storage does not exist for this one
  const other = await newTeam();
  assertRefused(await other.owner.post(`${BASE}/endpoint/create`, minimal({ volumeMounts: mount, clusterID: 'cls_sl_b' })), 'NETWORK_STORAGE_NOT_FOUND');
});

test('appName: the pattern, 46 characters, unique per team (two teams may share one), renamed on update', async () => {
  const { owner: o } = await newTeam();
  for (const bad of ['Upper', '-lead', 'trail-', 'with_underscore', 'a.b', 'x'.repeat(47), '']) {
    const r = await o.post(`${BASE}/endpoint/create`, minimal({ appName: bad }));
    assertRefused(r, 'VALIDATOR_PARAM', 'endpoint.appName');
  }
  assert.equal((await o.get(`${BASE}/endpoints`)).body.total, 0);
  const id = await create(o, minimal({ appName: 'a'.repeat(46) }));
  const dup = await o.post(`${BASE}/endpoint/create`, minimal({ appName: 'a'.repeat(46) }));
  assertRefused(dup, 'SERVERLESS_APP_NAME_IS_EXIST', 'endpoint.appName');
  const other = await newTeam();
  await create(other.owner, minimal({ appName: 'a'.repeat(46) }));

  const second = await create(o, minimal({ appName: 'second' }));
  const upd = (appName: string) => o.post(`${BASE}/endpoint/update`, {
    id: second, appName, workerConfig: { minNum: 1, maxNum: 1, freeTimeout: 1, maxConcurrent: 1, gpuNum: 1, requestTimeout: 1 },
    ports: [{ port: 80 }], policy: { type: 'queue', value: 1 }, image: { image: 'x' },
  });
  assertRefused(await upd('a'.repeat(46)), 'SERVERLESS_APP_NAME_IS_EXIST', 'appName');
  assertRefused(await upd('Bad'), 'VALIDATOR_PARAM', 'appName');
  const changed = t.services.ctx.changes.next('endpoint.changed', (c) => c.endpointId === second);
  assert.equal((await upd('renamed')).status, 200);
  const c = await changed;
  assert.deepEqual([c.appName, c.previousAppName], ['renamed', 'second']);
  assert.equal((await get(o, second)).url, `${PUBLIC}/serverless/renamed`);
  // the old name is free again
  await create(o, minimal({ appName: 'second' }));
  assert.equal((await get(o, id)).appName, 'a'.repeat(46));
});

test('concurrent creates with one appName: exactly one wins, the others are told the name exists', async () => {
  const { owner: o, team: tm } = await newTeam();
  const results = await Promise.all(Array.from({ length: 8 }, () => o.post(`${BASE}/endpoint/create`, minimal({ appName: 'race' }))));
  const ok = results.filter((r) => r.status === 200);
  assert.equal(ok.length, 1, JSON.stringify(results.map((r) => r.body)));
  for (const r of results.filter((x) => x.status !== 200)) assertRefused(r, 'SERVERLESS_APP_NAME_IS_EXIST', 'endpoint.appName');
  assert.equal((await o.get(`${BASE}/endpoints`)).body.total, 1);
  assert.equal(await t.services.spend.reservedMicro({ kind: 'team', id: tm.userId }), 0n, 'every reservation was given back');
});

test('another team\'s endpoint does not exist for this one: get, update, delete, logs', async () => {
  const id = await create(owner, minimal());
  const other = (await newTeam()).owner;
  assertRefused(await other.get(`${BASE}/endpoint`, { id }), 'SERVERLESS_ENDPOINT_NOT_FOUND', undefined, new RegExp(`endpoint ${id} not found`));
  assertRefused(await other.post(`${BASE}/endpoint/update`, {
    id, workerConfig: { minNum: 1, maxNum: 1, freeTimeout: 1, maxConcurrent: 1, gpuNum: 1, requestTimeout: 1 }, ports: [{ port: 80 }],
    policy: { type: 'queue', value: 1 }, image: { image: 'x' },
  }), 'SERVERLESS_ENDPOINT_NOT_FOUND');
  assertRefused(await other.post(`${BASE}/endpoint/delete`, { name: id }), 'SERVERLESS_ENDPOINT_NOT_FOUND');
  assertRefused(await other.get(`${BASE}/endpoint/log`, { id }), 'SERVERLESS_ENDPOINT_NOT_FOUND');
  assert.equal((await other.get(`${BASE}/endpoints`)).body.total, 0);
  assert.equal((await get(owner, id)).state.state, 'initializing', 'untouched');
});

test('roles: Owner, Admin and Developer change endpoints; Basic reads; Billing does neither', async () => {
  const { team: tm } = await newTeam();
  const id = await create(as(t.app, tm.members.Developer.apiKey), minimal());
  const basic = as(t.app, tm.members.Basic.apiKey);
  assert.equal((await basic.get(`${BASE}/endpoint`, { id })).status, 200);
  assert.equal((await basic.get(`${BASE}/endpoints`)).status, 200);
  assert.equal((await basic.get(`${BASE}/endpoint/limit`)).status, 200);
  assert.equal((await basic.post(`${BASE}/endpoint/create`, minimal())).status, 403);
  assert.equal((await basic.post(`${BASE}/endpoint/delete`, { name: id })).status, 403);
  const billing = as(t.app, tm.members.Billing.apiKey);
  assert.equal((await billing.get(`${BASE}/endpoints`)).status, 403);
  assert.equal((await billing.get(`${BASE}/endpoint/log`, { id })).status, 403);
  assert.equal((await as(t.app, tm.members.Admin.apiKey).post(`${BASE}/endpoint/delete`, { name: id })).status, 200);
  // the creator is who pays: the Developer's member and key
  const [row] = await t.store.db.select().from(endpoints).where(eq(endpoints.id, id));
  assert.deepEqual([row!.memberId, row!.keyId], [tm.members.Developer.memberId, tm.members.Developer.keyId]);
});

test('admission: the first workers\' hour must fit the balance and the budgets; a refusal writes nothing; minNum 0 needs nothing', async () => {
  // no money: refused with the GPU family's balance reason
  const poor = await newTeam(0);
  const r = await poor.owner.post(`${BASE}/endpoint/create`, minimal());
  assertRefused(r, 'BALANCE_NOT_ENOUGH');
  assert.match(r.body.message, /3600 s of 1 worker\(s\) × 1 × RTX 4090 24GB/);
  assert.equal(r.body.metadata.required, 3500);
  // scaled to zero: nothing to pay yet
  await create(poor.owner, minimal({ workerConfig: { minNum: 0 } }));
  assert.equal((await poor.owner.get(`${BASE}/endpoints`)).body.total, 1);

  // a key budget of $1 (10000 units) fits two workers' first hour (7000), not three (10500)
  const { owner: o, team: tm } = await newTeam();
  const budget = await o.put('/openapi/v1/user/team/key-budget', {
    member_id: tm.owner.memberId, key_id: tm.owner.keyId, budget_type: 'Recurring', budget_limit: 10000, cycle: 'Monthly',
  });
  assert.equal(budget.status, 200, JSON.stringify(budget.body));
  const three = await o.post(`${BASE}/endpoint/create`, minimal({ workerConfig: { minNum: 3 } }));
  assert.equal(three.status, 403, JSON.stringify(three.body));
  assert.equal(three.body.reason, 'BUDGET_EXCEEDED');
  assert.equal(three.body.metadata.scope, 'key');
  assert.equal(three.body.metadata.required, 10500);
  const gpus = await o.post(`${BASE}/endpoint/create`, minimal({ workerConfig: { minNum: 1, gpuNum: 4 } }));
  assert.equal(gpus.body.reason, 'BUDGET_EXCEEDED');
  assert.equal((await o.get(`${BASE}/endpoints`)).body.total, 0, 'nothing was written');
  await create(o, minimal({ workerConfig: { minNum: 2 } }));
});

test('operator limits: read and changed through /admin/v1/serverless/limits; tenants see them and are judged by them', async () => {
  const { owner: o } = await newTeam();
  const admin = as(t.app, t.creds.adminToken);
  const defaults = {
    minRootfsSize: 10, maxRootfsSize: 100, freeRootfsSize: 100, minLocalVolumeSize: 10, maxLocalVolumeSize: 300, freeLocalVolumeSize: 200,
    minWorkerNum: 0, maxWorkerNum: 1000, minFreeTimeout: 1, maxFreeTimeout: 1000, minConcurrencyNum: 1, maxConcurrencyNum: 1000,
    minQueueWaitTime: 1, maxQueueWaitTime: 1000, minRequestNum: 1, maxRequestNum: 1000, minGPUNum: 1, maxGPUNum: 8,
    minRequestTimeout: 1, maxRequestTimeout: 1800, cudaVersionList: ['12.1', '12.2'],
  };
  assert.deepEqual((await o.get(`${BASE}/endpoint/limit`)).body, defaults);
  assert.deepEqual((await admin.get('/admin/v1/serverless/limits')).body, defaults);
  try {
    // refused: min above max, out of bounds, unknown field, a bad CUDA version; nothing changes
    for (const [body, field] of [
      [{ minGPUNum: 4, maxGPUNum: 2 }, 'maxGPUNum'], [{ maxGPUNum: 9 }, 'maxGPUNum'], [{ minWorkerNum: -1 }, 'minWorkerNum'],
      [{ maxRootfsSize: 5 }, 'maxRootfsSize'], [{ cudaVersionList: ['twelve'] }, 'cudaVersionList[0]'], [{ cudaVersionList: ['12.1', '12.1'] }, 'cudaVersionList'],
      [{ maxGpuNum: 4 }, 'body'],
    ] as const) {
      const r = await admin.put('/admin/v1/serverless/limits', body);
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.reason, 'INVALID_ARGUMENT');
      assert.equal(r.body.metadata.field, field, JSON.stringify(r.body));
    }
    assert.deepEqual((await o.get(`${BASE}/endpoint/limit`)).body, defaults);

    const set = await admin.put('/admin/v1/serverless/limits', { maxGPUNum: 2, minFreeTimeout: 100, cudaVersionList: ['12.4'] });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const now = { ...defaults, maxGPUNum: 2, minFreeTimeout: 100, cudaVersionList: ['12.4'] };
    assert.deepEqual(set.body, now);
    assert.deepEqual((await o.get(`${BASE}/endpoint/limit`)).body, now);
    assertRefused(await o.post(`${BASE}/endpoint/create`, minimal({ workerConfig: { gpuNum: 3 } })), 'VALIDATOR_PARAM', 'endpoint.workerConfig.gpuNum', /1-2, got 3/);
    assertRefused(await o.post(`${BASE}/endpoint/create`, minimal({ workerConfig: { cudaVersion: '12.2' } })), 'VALIDATOR_PARAM', 'endpoint.workerConfig.cudaVersion', /12\.4/);
    // defaults move into the operator's ranges: freeTimeout 60 becomes 100
    const e = await get(o, await create(o, minimal({ workerConfig: { cudaVersion: '12.4' } })));
    assert.deepEqual([e.workerConfig.freeTimeout, e.workerConfig.cudaVersion], ['100', '12.4']);
  } finally {
    assert.equal((await admin.put('/admin/v1/serverless/limits', defaults)).status, 200);
  }
});

test('paging: pageNum is 1-based (0 reads as 1), pageNumber is its alias, missing paging reads 10/1; out of range is refused', async () => {
  const { owner: o } = await newTeam();
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) {
    t.clock.advance(1);
    ids.push(await create(o, minimal({ workerConfig: { minNum: 0 } })));
  }
  const newest = [...ids].reverse();
  const page = async (q: Record<string, number>) => {
    const r = await o.get(`${BASE}/endpoints`, q);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.total, 12);
    return r.body.endpoints.map((e: { id: string }) => e.id);
  };
  assert.deepEqual(await page({}), newest.slice(0, 10));
  assert.deepEqual(await page({ pageSize: 5, pageNum: 0 }), newest.slice(0, 5));
  assert.deepEqual(await page({ pageSize: 5, pageNum: 3 }), newest.slice(10, 12));
  assert.deepEqual(await page({ pageSize: 5, pageNumber: 2 }), newest.slice(5, 10));
  assertRefused(await o.get(`${BASE}/endpoints`, { pageSize: 101 }), 'VALIDATOR_PARAM', 'pageSize');
});

test('host-based URLs when GANTRY_SERVERLESS_DOMAIN is set', async () => {
  const h = await buildTestApp({ env: { GANTRY_PUBLIC_URL: 'https://api.example.com:8443', GANTRY_SERVERLESS_DOMAIN: 'run.example.com' } });
  try {
    const tm = await createTeam(h.app, h.creds.adminToken);
    await topup(h.app, h.creds.adminToken, tm.userId, 10_000_000); // scale from zero is admitted
    const o = as(h.app, tm.owner.apiKey);
    const r = await o.post(`${BASE}/endpoint/create`, minimal({ appName: 'hosted', workerConfig: { minNum: 0 } }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const e = (await o.get(`${BASE}/endpoint`, { id: r.body.id })).body.endpoint;
    assert.equal(e.url, 'https://hosted.run.example.com');
    assert.equal(e.log, `https://api.example.com:8443/gpu-instance/openapi/v1/endpoint/log?id=${r.body.id}`);
    // the host routes to the endpoint: scaled to zero on a clock that stands still, the
    // request waits for a worker in that endpoint's queue and times out there
    const u = await o.post(`${BASE}/endpoint/update`, { id: r.body.id, workerConfig: { minNum: 0, maxNum: 1, freeTimeout: 60, maxConcurrent: 1, gpuNum: 1, requestTimeout: 1 }, ports: [{ port: 8080 }], policy: { type: 'queue', value: 4 }, image: { image: '' } });
    assert.equal(u.status, 200, JSON.stringify(u.body));
    const viaHost = (host: string, key = tm.owner.apiKey, url = '/v1/chat/completions') => h.app.inject({ method: 'GET', url, headers: { host, authorization: `Bearer ${key}` } });
    const hosted = await viaHost('hosted.run.example.com:443');
    assert.equal(hosted.statusCode, 504, hosted.body);
    assert.match(hosted.json().message, /no worker of endpoint hosted took the request/);
    const upper = await viaHost('HOSTED.run.example.com.');
    assert.equal(upper.statusCode, 504, `host names are case-insensitive, a final dot allowed: ${upper.body}`);
    const other = await createTeam(h.app, h.creds.adminToken);
    assert.equal((await viaHost('hosted.run.example.com', other.owner.apiKey)).statusCode, 404, "another team's key");
    assert.equal((await viaHost('nothere.run.example.com')).statusCode, 404);
    // the API's own host and other hosts are not rewritten
    assert.equal((await viaHost('api.example.com:8443', tm.owner.apiKey, '/openai/v1/models')).statusCode, 200);
    assert.equal((await viaHost('hosted.example.org', tm.owner.apiKey, '/openai/v1/models')).statusCode, 200);
  } finally {
    await h.close();
  }
});
