import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam } from '../../../../test/helpers/factories.ts';
import { BASE, PRODUCT, fixture, type Fixture } from './fixture.ts';

let f: Fixture;
before(async () => {
  f = await fixture();
  assert.equal((await f.admin.post('/admin/v1/gpu/clusters', { id: 'cls_ns', name: 'with-storage', supportNetworkStorage: true })).status, 200);
  assert.equal((await f.admin.put(`/admin/v1/gpu/products/${PRODUCT}/inventory/cls_ns`, { totalGpus: 8 })).status, 200);
});
after(() => f.close());

test('network storage: create, list, grow, mount into an instance of its cluster, delete when unmounted', async () => {
  const noSupport = await f.owner.post(`${BASE}/networkstorage/create`, { storageName: 'x', clusterId: 'cls_local', storageSize: 10 });
  assert.equal(noSupport.status, 400);
  assert.equal(noSupport.body.metadata.field, 'clusterId');
  const badSize = await f.owner.post(`${BASE}/networkstorage/create`, { storageName: 'x', clusterId: 'cls_ns', storageSize: 0 });
  assert.equal(badSize.body.metadata.field, 'storageSize');
  const c = await f.owner.post(`${BASE}/networkstorage/create`, { storageName: 'data', clusterId: 'cls_ns', storageSize: 100 });
  assert.equal(c.status, 200, JSON.stringify(c.body));
  const sid = c.body.storageId;
  const l = await f.owner.get(`${BASE}/networkstorages/list`, { pageNo: 0, pageSize: 10 });
  assert.equal(l.body.total, 1);
  assert.deepEqual({ ...l.body.data[0], createdAt: undefined }, { storageId: sid, storageName: 'data', storageSize: 100, clusterId: 'cls_ns', clusterName: 'with-storage', createdAt: undefined });
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
