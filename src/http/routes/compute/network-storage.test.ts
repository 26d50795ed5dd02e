import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam } from '../../../../test/helpers/factories.ts';
import { BASE, PRODUCT, fixture, type Fixture } from '../../../../test/helpers/compute-fixture.ts';

let f: Fixture;
before(async () => {
  f = await fixture();
  assert.equal((await f.admin.post('/admin/v1/gpu/clusters', { id: 'cls_ns', name: 'with-storage', supportNetworkStorage: true })).status, 200);
  assert.equal((await f.admin.put(`/admin/v1/gpu/products/${PRODUCT}/inventory/cls_ns`, { totalGpus: 8 })).status, 200);
  assert.equal((await f.admin.post('/admin/v1/gpu/clusters', { id: 'cls_nostore', name: 'without-storage' })).status, 200);
});
after(() => f.close());

test('network storage: create, list, grow, mount into an instance of its cluster, delete when unmounted', async () => {
  const noSupport = await f.owner.post(`${BASE}/networkstorage/create`, { storageName: 'x', clusterId: 'cls_nostore', storageSize: 10 });
  assert.equal(noSupport.status, 400);
  assert.equal(noSupport.body.metadata.field, 'clusterId');
  const badSize = await f.owner.post(`${BASE}/networkstorage/create`, { storageName: 'x', clusterId: 'cls_ns', storageSize: 0 });
  assert.equal(badSize.body.metadata.field, 'storageSize');
  const c = await f.owner.post(`${BASE}/networkstorage/create`, { storageName: 'data', clusterId: 'cls_ns', storageSize: 100 });
  assert.equal(c.status, 200, JSON.stringify(c.body));
  const sid = c.body.storageId;
  const l = await f.owner.get(`${BASE}/networkstorages/list`, { pageNo: 0, pageSize: 10 });
  assert.equal(l.body.total, 1);
  assert.deepEqual({ ...l.body.data[0], createdAt: undefined }, { storageId: sid, storageName: 'data', storageSize: 100, clusterId: 'cls_ns', clusterName: 'with-storage', price: '0', createdAt: undefined });
  assert.equal((await f.owner.post(`${BASE}/networkstorage/update`, { storageId: sid, storageSize: 50 })).body.metadata.field, 'storageSize');
  assert.equal((await f.owner.post(`${BASE}/networkstorage/update`, { storageId: sid, storageSize: 200, storageName: 'data2' })).status, 200);

  // the instance is placed in the storage's cluster and mounts it
  const id = await f.create({ networkStorages: [{ Id: sid, mountPoint: '/data' }] });
  const g = await f.get(id);
  assert.equal(g.clusterId, 'cls_ns');
  assert.deepEqual(g.volumeMounts, [{ type: 'network', size: '200', id: sid, mountPath: '/data' }]);
  const wrong = await f.owner.post(`${BASE}/gpu/instance/create`, { productId: PRODUCT, gpuNum: 1, rootfsSize: 50, imageUrl: 'i', kind: 'gpu', clusterId: 'cls_local', networkStorages: [{ Id: sid, mountPoint: '/data' }] });
  assert.equal(wrong.status, 400);
  assert.equal(wrong.body.metadata.field, 'networkStorages[0].Id');
  const rel = await f.owner.post(`${BASE}/gpu/instance/create`, { productId: PRODUCT, gpuNum: 1, rootfsSize: 50, imageUrl: 'i', kind: 'gpu', networkStorages: [{ Id: sid, mountPoint: 'data' }] });
  assert.equal(rel.body.metadata.field, 'networkStorages[0].mountPoint');

  const busy = await f.owner.post(`${BASE}/networkstorage/delete`, { storageId: sid });
  assert.equal(busy.status, 400);
  assert.match(busy.body.message, new RegExp(id));
  await f.owner.post(`${BASE}/gpu/instance/delete`, { instanceId: id });
  await f.until(id, 'removed');
  assert.equal((await f.owner.post(`${BASE}/networkstorage/delete`, { storageId: sid })).status, 200);
  assert.equal((await f.owner.post(`${BASE}/networkstorage/delete`, { storageId: sid })).body.reason, 'NETWORK_STORAGE_NOT_FOUND');
});

test('another team cannot see or mount the storage; Basic reads, Billing does not', async () => {
  const sid = (await f.owner.post(`${BASE}/networkstorage/create`, { storageName: 'mine', clusterId: 'cls_ns', storageSize: 10 })).body.storageId;
  const other = await createTeam(f.t.app, f.t.creds.adminToken);
  const o = as(f.t.app, other.owner.apiKey);
  assert.equal((await o.get(`${BASE}/networkstorages/list`)).body.total, 0);
  const m = await o.post(`${BASE}/gpu/instance/create`, { productId: PRODUCT, gpuNum: 1, rootfsSize: 50, imageUrl: 'i', kind: 'gpu', networkStorages: [{ Id: sid, mountPoint: '/d' }] });
  assert.equal(m.body.reason, 'NETWORK_STORAGE_NOT_FOUND');
  assert.equal((await as(f.t.app, f.team.members.Basic.apiKey).get(`${BASE}/networkstorages/list`)).status, 200);
  assert.equal((await as(f.t.app, f.team.members.Basic.apiKey).post(`${BASE}/networkstorage/create`, { storageName: 'b', clusterId: 'cls_ns', storageSize: 1 })).status, 403);
  assert.equal((await as(f.t.app, f.team.members.Billing.apiKey).get(`${BASE}/networkstorages/list`)).status, 403);
});

test('the seeded cluster has network storage; the list filters by storageId and storageName and shows each price', async () => {
  const team = await createTeam(f.t.app, f.t.creds.adminToken);
  const o = as(f.t.app, team.owner.apiKey);
  const mk = async (storageName: string, clusterId: string) => {
    const r = await o.post(`${BASE}/networkstorage/create`, { storageName, clusterId, storageSize: 20 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.storageId as string;
  };
  const models = await mk('Models', 'cls_local');
  const data = await mk('datasets', 'cls_local');
  const other = await mk('model-cache', 'cls_ns');
  const list = (q: Record<string, string | number> = {}) => o.get(`${BASE}/networkstorages/list`, q);

  const all = await list();
  assert.equal(all.body.total, 3);
  const byId = new Map(all.body.data.map((s: any) => [s.storageId, s]));
  // units (1/10000 USD) per GB-month: the seeded cluster's $0.07, another cluster's own (0 unless set)
  assert.equal((byId.get(models) as any).price, '700');
  assert.equal((byId.get(other) as any).price, '0');
  assert.equal((byId.get(models) as any).clusterName, 'local');

  const one = await list({ storageId: data });
  assert.deepEqual(one.body.data.map((s: any) => s.storageId), [data]);
  assert.equal(one.body.total, 1);
  assert.deepEqual((await list({ storageName: 'MODEL' })).body.data.map((s: any) => s.storageId).sort(), [models, other].sort(), 'fuzzy, case-insensitive');
  assert.deepEqual((await list({ storageName: 'model', storageId: models })).body.data.map((s: any) => s.storageId), [models]);
  assert.equal((await list({ storageId: 'ns_missing' })).body.total, 0);
  // another team's storage is not found by its id either
  assert.equal((await f.owner.get(`${BASE}/networkstorages/list`, { storageId: models })).body.total, 0);
  const long = await list({ storageName: 'x'.repeat(256) });
  assert.equal(long.status, 400);
  assert.equal(long.body.metadata.field, 'storageName');

  // the operator sets the price on the cluster; tenants see it at once
  const set = await f.admin.post('/admin/v1/gpu/clusters', { id: 'cls_ns', name: 'with-storage', supportNetworkStorage: true, storagePrice: '1200' });
  assert.equal(set.status, 200, JSON.stringify(set.body));
  assert.equal((await list({ storageId: other })).body.data[0].price, '1200');
  const cat = await f.admin.get('/admin/v1/gpu/catalogue');
  assert.equal(cat.body.clusters.find((c: any) => c.id === 'cls_ns').storagePrice, '1200');
  assert.equal(cat.body.clusters.find((c: any) => c.id === 'cls_local').storagePrice, '700');
  const neg = await f.admin.post('/admin/v1/gpu/clusters', { id: 'cls_ns', name: 'with-storage', supportNetworkStorage: true, storagePrice: -1 });
  assert.equal(neg.status, 400);
  assert.equal(neg.body.metadata.field, 'storagePrice');
});

test('update takes storageSize as a string of digits too (the vendor example sends one)', async () => {
  const sid = (await f.owner.post(`${BASE}/networkstorage/create`, { storageName: 's', clusterId: 'cls_local', storageSize: 10 })).body.storageId;
  assert.equal((await f.owner.post(`${BASE}/networkstorage/update`, { storageId: sid, storageName: 's', storageSize: '30' })).status, 200);
  assert.equal((await f.owner.get(`${BASE}/networkstorages/list`, { storageId: sid })).body.data[0].storageSize, 30);
  for (const storageSize of ['3O', '', '-5', '10']) {
    const r = await f.owner.post(`${BASE}/networkstorage/update`, { storageId: sid, storageSize });
    assert.equal(r.status, 400, storageSize);
    assert.equal(r.body.metadata.field, 'storageSize');
  }
});

test('an update with nothing to change is a 400 naming the fields to send, and changes nothing', async () => {
  const sid = (await f.owner.post(`${BASE}/networkstorage/create`, { storageName: 'keep', clusterId: 'cls_local', storageSize: 10 })).body.storageId;
  const r = await f.owner.post(`${BASE}/networkstorage/update`, { storageId: sid });
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.equal(r.body.reason, 'VALIDATOR_PARAM');
  assert.equal(r.body.metadata.field, 'storageName');
  assert.match(r.body.message, /storageName, storageSize or both/);
  const row = (await f.owner.get(`${BASE}/networkstorages/list`, { storageId: sid })).body.data[0];
  assert.deepEqual([row.storageName, row.storageSize], ['keep', 10]);
  // a size beyond the largest volume is refused by its range, before any lookup
  const huge = await f.owner.post(`${BASE}/networkstorage/update`, { storageId: sid, storageSize: 2 ** 31 });
  assert.equal(huge.status, 400);
  assert.equal(huge.body.metadata.field, 'storageSize');
  assert.match(huge.body.message, /1-100000/);
});
