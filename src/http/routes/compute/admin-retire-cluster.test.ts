// A cluster retired by the operator: out of the tenants' lists, no new instance or network
// storage there; what runs there keeps running; saving it again puts it back.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, PRODUCT, fixture, type Fixture } from '../../../../test/helpers/compute-fixture.ts';

let f: Fixture;
before(async () => {
  f = await fixture();
});
after(() => f.close());

test('a retired cluster leaves the lists and takes no new work; its instances keep running; saved again, it is back', async () => {
  const cluster = { id: 'cls_old', name: 'old-dc', region: 'old-1', supportNetworkStorage: true };
  assert.equal((await f.admin.post('/admin/v1/gpu/clusters', cluster)).status, 200);
  assert.equal((await f.admin.put(`/admin/v1/gpu/products/${PRODUCT}/inventory/cls_old`, { totalGpus: 4 })).status, 200);
  const running = await f.create({ clusterId: 'cls_old' });
  await f.until(running, 'running');
  const storage = await f.owner.post(`${BASE}/networkstorage/create`, { storageName: 'data', clusterId: 'cls_old', storageSize: 10 });
  assert.equal(storage.status, 200, JSON.stringify(storage.body));

  const endpoint = (over: Record<string, unknown> = {}) => ({ endpoint: { image: { image: 'ghcr.io/acme/echo:1' }, ports: [{ port: 8080 }], products: [{ id: PRODUCT }], clusterID: 'cls_old', ...over } });
  const ep = await f.owner.post(`${BASE}/endpoint/create`, endpoint());
  assert.equal(ep.status, 200, JSON.stringify(ep.body));

  assert.equal((await f.admin.post('/admin/v1/gpu/clusters/cls_old/retire')).status, 200);
  const lateEp = await f.owner.post(`${BASE}/endpoint/create`, endpoint());
  assert.equal(lateEp.status, 400, JSON.stringify(lateEp.body));
  assert.equal(lateEp.body.metadata.field, 'endpoint.clusterID');
  const update = await f.owner.post(`${BASE}/endpoint/update`, {
    id: ep.body.id, workerConfig: { minNum: 0, maxNum: 2, freeTimeout: 60, maxConcurrent: 1, gpuNum: 1, requestTimeout: 60 },
    ports: [{ port: '8080' }], policy: { type: 'queue', value: 5 }, image: { image: 'ghcr.io/acme/echo:2' },
  });
  assert.equal(update.status, 200, `an endpoint there keeps its cluster: ${JSON.stringify(update.body)}`);
  const clusters = async () => (await f.owner.get(`${BASE}/clusters`)).body.data.map((c: { id: string }) => c.id);
  assert.ok(!(await clusters()).includes('cls_old'), 'it leaves the tenants\' cluster list');
  const product = (await f.owner.get(`${BASE}/products`, { clusterId: 'cls_old' })).body.data;
  assert.deepEqual(product, [], 'its GPUs are not offered');

  const pinned = await f.owner.post(`${BASE}/gpu/instance/create`, { name: 'x', productId: PRODUCT, gpuNum: 1, rootfsSize: 50, imageUrl: 'i', kind: 'gpu', clusterId: 'cls_old' });
  assert.equal(pinned.status, 400, JSON.stringify(pinned.body));
  assert.equal(pinned.body.metadata.field, 'clusterId');
  assert.match(pinned.body.message, /retired/);
  const withStorage = await f.owner.post(`${BASE}/gpu/instance/create`, {
    name: 'x', productId: PRODUCT, gpuNum: 1, rootfsSize: 50, imageUrl: 'i', kind: 'gpu', networkStorages: [{ Id: storage.body.storageId, mountPoint: '/data' }],
  });
  assert.equal(withStorage.status, 400, 'nor through a storage that lives there');
  const newStorage = await f.owner.post(`${BASE}/networkstorage/create`, { storageName: 'more', clusterId: 'cls_old', storageSize: 10 });
  assert.equal(newStorage.status, 400);
  assert.equal(newStorage.body.metadata.field, 'clusterId');
  const elsewhere = await f.create();
  assert.notEqual((await f.get(elsewhere)).clusterId, 'cls_old', 'an unpinned create goes to another cluster');

  await f.run(5_000);
  assert.equal((await f.get(running)).status, 'running', 'what runs there keeps running');
  assert.equal((await f.get(running)).clusterId, 'cls_old');

  assert.equal((await f.admin.post('/admin/v1/gpu/clusters', cluster)).status, 200);
  assert.ok((await clusters()).includes('cls_old'), 'saved again, it is back');
  await f.create({ clusterId: 'cls_old' });
  assert.equal((await f.admin.post('/admin/v1/gpu/clusters/cls_nope/retire')).status, 404);
});
