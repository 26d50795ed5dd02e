import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toRequest } from './admin.ts';

test('gpu operator commands map to the operator API', () => {
  assert.deepEqual(toRequest(['gpu', 'catalogue']), { method: 'GET', path: '/admin/v1/gpu/catalogue' });
  assert.deepEqual(toRequest(['gpu', 'cluster', '--id', 'cls_b', '--name', 'B', '--region', 'eu-1', '--network-storage']), {
    method: 'POST', path: '/admin/v1/gpu/clusters', body: { id: 'cls_b', name: 'B', region: 'eu-1', supportNetworkStorage: true, supportInstanceNetwork: false },
  });
  assert.deepEqual(toRequest(['gpu', 'cluster', '--id', 'cls_b', '--name', 'B', '--network-storage', '--storage-price', '0.07']).body, {
    id: 'cls_b', name: 'B', supportNetworkStorage: true, supportInstanceNetwork: false, storagePrice: '700',
  });
  assert.deepEqual(toRequest(['gpu', 'inventory', 'prd_x', 'cls_b', '16']), { method: 'PUT', path: '/admin/v1/gpu/products/prd_x/inventory/cls_b', body: { totalGpus: 16 } });
  assert.deepEqual(toRequest(['gpu', 'reclaim', 'ins_1', '--notice-seconds', '30']), { method: 'POST', path: '/admin/v1/gpu/instances/ins_1/reclaim', body: { noticeSeconds: 30 } });
  assert.deepEqual(toRequest(['gpu', 'migrate', 'ins_1', 'cls_b']), { method: 'POST', path: '/admin/v1/gpu/instances/ins_1/migrate', body: { clusterId: 'cls_b' } });
  assert.deepEqual(toRequest(['gpu', 'product', '--json', '{"id":"p"}']).body, { id: 'p' });
  assert.throws(() => toRequest(['gpu', 'inventory', 'prd_x']), /clusterId/);
});
