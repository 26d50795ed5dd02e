import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { as } from '../../../../test/helpers/http.ts';
import { fixture, type Fixture, BASE } from '../../../../test/helpers/compute-fixture.ts';

let f: Fixture;
before(async () => {
  f = await fixture();
});
after(() => f.close());

const h100 = {
  id: 'prd_h100', name: 'H100 80GB', gpuModel: 'H100', cpuPerGpu: 24, memoryPerGpu: 240, diskPerGpu: 500,
  minRootfs: 20, maxRootfs: 1000, price: 25000, spotPrice: '12000', monthlyPrice: 15000000,
  billingMethods: ['onDemand', 'spot'], nodeSelector: { 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3' },
};

test('operator manages clusters, products and inventory; tenants see them in products and clusters', async () => {
  assert.equal((await f.admin.post('/admin/v1/gpu/clusters', { id: 'cls_eu', name: 'eu-west', region: 'eu-west-1', supportNetworkStorage: true })).status, 200);
  const p = await f.admin.post('/admin/v1/gpu/products', h100);
  assert.equal(p.status, 200, JSON.stringify(p.body));
  assert.equal((await f.admin.put('/admin/v1/gpu/products/prd_h100/inventory/cls_eu', { totalGpus: 10 })).status, 200);
  const cat = await f.admin.get('/admin/v1/gpu/catalogue');
  assert.equal(cat.status, 200);
  assert.deepEqual(cat.body.inventory.find((i: any) => i.productId === 'prd_h100'), { productId: 'prd_h100', clusterId: 'cls_eu', total: 10, used: 0, free: 10 });
  const prod = (await f.owner.get(`${BASE}/products`, { productName: 'h100' })).body.data;
  assert.equal(prod.length, 1);
  assert.equal(prod[0].price, '25000');
  assert.equal(prod[0].spotPrice, '12000');
  assert.deepEqual(prod[0].regions, ['eu-west-1']);
  assert.equal(prod[0].inventoryState, 'high');
  assert.deepEqual((await f.owner.get(`${BASE}/products`, { billingMethod: 'monthly', productName: 'h100' })).body.data, []);
  const cl = (await f.owner.get(`${BASE}/clusters`)).body.data.find((c: any) => c.id === 'cls_eu');
  assert.deepEqual(cl, { id: 'cls_eu', name: 'eu-west', availableGpuType: ['H100'], supportNetworkStorage: true, supportInstanceNetwork: false });
  // 9 of 10 taken → low
  const r = await f.owner.post(`${BASE}/gpu/instance/create`, { productId: 'prd_h100', gpuNum: 8, rootfsSize: 50, imageUrl: 'i', kind: 'gpu' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const r2 = await f.owner.post(`${BASE}/gpu/instance/create`, { productId: 'prd_h100', gpuNum: 1, rootfsSize: 50, imageUrl: 'i', kind: 'gpu' });
  assert.equal(r2.status, 200);
  assert.equal((await f.owner.get(`${BASE}/products`, { productName: 'h100' })).body.data[0].inventoryState, 'low');
  assert.equal((await f.owner.get(`${BASE}/products`, { productName: 'h100', gpuNum: 2 })).body.data[0].availableDeploy, false);
  // monthly is not offered by this product
  const m = await f.owner.post(`${BASE}/gpu/instance/create`, { productId: 'prd_h100', gpuNum: 1, rootfsSize: 50, imageUrl: 'i', kind: 'gpu', billingMode: 'monthly', month: 1 });
  assert.equal(m.status, 400);
  assert.equal(m.body.metadata.field, 'billingMode');
});

test('catalogue validation and operator-only access', async () => {
  const bad = await f.admin.post('/admin/v1/gpu/products', { ...h100, id: 'prd_bad', billingMethods: ['hourly'] });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.metadata.field, 'billingMethods.0');
  assert.match(bad.body.message, /^billingMethods\.0: must be one of onDemand, monthly, spot$/);
  const inv = await f.admin.put('/admin/v1/gpu/products/prd_missing/inventory/cls_local', { totalGpus: 1 });
  assert.equal(inv.status, 404);
  const tenant = as(f.t.app, f.team.owner.apiKey);
  assert.equal((await tenant.post('/admin/v1/gpu/products', h100)).status, 401);
  assert.equal((await tenant.get('/admin/v1/gpu/catalogue')).status, 401);
});

test('a GPU product\'s JSON is refused with every problem at once, nothing stored', async () => {
  const { name: _name, ...noName } = h100;
  const bad = await f.admin.post('/admin/v1/gpu/products', { ...noName, id: 'prd bad!', cpuPerGpu: 0, price: -1, billingMethods: ['hourly', 'spot'] });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.reason, 'INVALID_ARGUMENT');
  assert.equal(bad.body.metadata.problems, 5, bad.body.message);
  for (const said of ['name: is required', 'id: must match pattern', 'cpuPerGpu: must be an integer in 1-2147483647', 'price: must be an integer in 0-1000000000', 'billingMethods.0: must be one of onDemand, monthly, spot']) {
    assert.ok(bad.body.message.includes(said), `${said} in: ${bad.body.message}`);
  }
  assert.match(bad.body.message, /^5 problems: /);
  const empty = await f.admin.post('/admin/v1/gpu/products', { ...h100, id: 'prd_none', billingMethods: [] });
  assert.match(empty.body.message, /billingMethods: must NOT have fewer than 1 items/);
  const cat = await f.admin.get('/admin/v1/gpu/catalogue');
  assert.ok(!cat.body.products.some((p: { id: string }) => p.id === 'prd_none' || p.id === 'prd bad!'));
});
