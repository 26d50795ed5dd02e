// POST /gpu/instance/upgrade: every field of compat.md is required and replaces the
// instance's; networkVolume.volumeMounts become the instance's network storages.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam } from '../../../../test/helpers/factories.ts';
import { BASE, PRODUCT, fixture, type Fixture } from '../../../../test/helpers/compute-fixture.ts';

let f: Fixture;
before(async () => {
  f = await fixture();
  assert.equal((await f.admin.post('/admin/v1/gpu/clusters', { id: 'cls_far', name: 'far', supportNetworkStorage: true })).status, 200);
  assert.equal((await f.admin.put(`/admin/v1/gpu/products/${PRODUCT}/inventory/cls_far`, { totalGpus: 8 })).status, 200);
});
after(() => f.close());

const storage = async (name: string, clusterId = 'cls_local') => {
  const r = await f.owner.post(`${BASE}/networkstorage/create`, { storageName: name, clusterId, storageSize: 50 });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.storageId as string;
};

const body = (instanceId: string, patch: Record<string, unknown> = {}): Record<string, unknown> => ({
  instanceId, imageUrl: 'repo/new:2', imageAuthId: '', envs: [{ key: 'B', value: 'c' }], command: 'serve', save: true,
  networkVolume: { volumeMounts: [] }, ...patch,
});
const upgrade = (b: unknown) => f.owner.post(`${BASE}/gpu/instance/upgrade`, b);

test('every field is required: a missing one is a 400 naming it, and nothing changes', async () => {
  const id = await f.create({ clusterId: 'cls_local' });
  await f.until(id, 'running');
  for (const field of ['instanceId', 'imageUrl', 'imageAuthId', 'envs', 'command', 'save', 'networkVolume']) {
    const { [field]: _gone, ...rest } = body(id);
    const r = await upgrade(rest);
    assert.equal(r.status, 400, `${field}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.reason, 'VALIDATOR_PARAM');
    assert.equal(r.body.metadata.field, field);
    assert.equal(r.body.metadata.rule, 'is required');
  }
  const noMounts = await upgrade(body(id, { networkVolume: {} }));
  assert.equal(noMounts.body.metadata.field, 'networkVolume.volumeMounts');
  const notBool = await upgrade(body(id, { save: 'yes' }));
  assert.equal(notBool.status, 400);
  assert.equal(notBool.body.metadata.field, 'save');
  const g = await f.get(id);
  assert.equal(g.status, 'running');
  assert.equal(g.imageUrl, 'nvidia/cuda:12.4.0-base-ubuntu22.04');
});

test('the upgrade replaces image, credential, envs, command and network volumes; entrypoint is kept unless given', async () => {
  const a = await storage('a');
  const b = await storage('b');
  const id = await f.create({
    clusterId: 'cls_local', envs: [{ key: 'OLD', value: '1' }], command: 'old', entrypoint: '/bin/sh', networkStorages: [{ Id: a, mountPoint: '/a' }],
  });
  await f.until(id, 'running');
  const r = await upgrade(body(id, {
    envs: [], command: '', save: false,
    networkVolume: { volumeMounts: [{ type: 'network', id: b, mountPath: '/b' }, { type: 'network', id: a, mountPath: '/data/a' }] },
  }));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body, {});
  assert.equal((await f.get(id)).status, 'toReset');
  const g = await f.until(id, 'running');
  assert.equal(g.imageUrl, 'repo/new:2');
  assert.deepEqual(g.envs, []);
  assert.equal(g.command, '');
  assert.equal(g.entrypoint, '/bin/sh');
  assert.deepEqual(g.volumeMounts, [
    { type: 'network', size: '50', id: b, mountPath: '/b' },
    { type: 'network', id: a, size: '50', mountPath: '/data/a' },
  ]);
  // b is now in use; an upgrade with an empty list unmounts everything and frees it
  assert.equal((await f.owner.post(`${BASE}/networkstorage/delete`, { storageId: b })).status, 400);
  assert.equal((await upgrade(body(id, { entrypoint: '', networkVolume: { volumeMounts: [] } }))).status, 200);
  const after = await f.until(id, 'running');
  assert.deepEqual(after.volumeMounts, []);
  assert.equal(after.entrypoint, '');
  assert.equal((await f.owner.post(`${BASE}/networkstorage/delete`, { storageId: b })).status, 200);
});

test('network volumes are judged before anything is written', async () => {
  const near = await storage('near');
  const far = await storage('far', 'cls_far');
  const id = await f.create({ clusterId: 'cls_local' });
  await f.until(id, 'running');
  const mounts = (volumeMounts: unknown[]) => body(id, { networkVolume: { volumeMounts } });
  const cases: [unknown[], string, RegExp][] = [
    [[{ type: 'local', id: near, mountPath: '/n' }], 'networkVolume.volumeMounts[0].type', /must be network/],
    [[{ type: 'network', id: near, mountPath: 'n' }], 'networkVolume.volumeMounts[0].mountPath', /absolute path/],
    [[{ type: 'network', id: near, mountPath: '' }], 'networkVolume.volumeMounts[0].mountPath', /1-255/],
    [[{ type: 'network', id: near, mountPath: '/n' }, { type: 'network', id: near, mountPath: '/n' }], 'networkVolume.volumeMounts[1].mountPath', /mounted twice/],
    [[{ type: 'network', id: far, mountPath: '/f' }], 'networkVolume.volumeMounts[0].id', /is in cluster cls_far; the instance runs in cls_local/],
    [Array.from({ length: 31 }, (_, i) => ({ type: 'network', id: near, mountPath: `/m${i}` })), 'networkVolume.volumeMounts', /at most 30/],
  ];
  for (const [vm, field, rule] of cases) {
    const r = await upgrade(mounts(vm));
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.reason, 'VALIDATOR_PARAM');
    assert.equal(r.body.metadata.field, field, JSON.stringify(r.body));
    assert.match(r.body.message, rule);
  }
  // another team's storage, and a credential that is not the team's, answer as missing
  const other = await createTeam(f.t.app, f.t.creds.adminToken);
  const theirs = (await as(f.t.app, other.owner.apiKey).post(`${BASE}/networkstorage/create`, { storageName: 't', clusterId: 'cls_local', storageSize: 1 })).body.storageId;
  assert.equal((await upgrade(mounts([{ type: 'network', id: theirs, mountPath: '/t' }]))).body.reason, 'NETWORK_STORAGE_NOT_FOUND');
  assert.equal((await upgrade(body(id, { imageAuthId: 'auth_missing' }))).body.reason, 'RESOURCE_NOT_FOUND');
  for (const [k, v, field] of [['imageUrl', '', 'imageUrl'], ['command', 'c'.repeat(2048), 'command'], ['entrypoint', 'e'.repeat(2048), 'entrypoint']] as const) {
    assert.equal((await upgrade(body(id, { [k]: v }))).body.metadata.field, field);
  }
  const g = await f.get(id);
  assert.equal(g.status, 'running');
  assert.deepEqual(g.volumeMounts, []);
  assert.equal(g.imageUrl, 'nvidia/cuda:12.4.0-base-ubuntu22.04');
});
