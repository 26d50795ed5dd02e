import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam, topup } from '../../../../test/helpers/factories.ts';
import { INSTANCE_STATUSES, TRANSITIONS, OPERATIONS } from '../../../domain/compute/states.ts';
import { BASE, PRODUCT, fixture, type Fixture } from '../../../../test/helpers/compute-fixture.ts';

let f: Fixture;
before(async () => {
  f = await fixture();
});
after(() => f.close());

const opPath: Record<string, string> = { start: 'start', stop: 'stop', restart: 'restart', delete: 'delete' };

test('a lifecycle through every user-driven state: toCreate → creating → pulling → running → … → removed', async () => {
  const id = await f.create({ name: 'life', ports: '8888/http,3306/tcp', envs: [{ key: 'A', value: 'b' }], command: 'sleep infinity' });
  const seen = new Set<string>();
  const watch = async (target: string) => {
    seen.add((await f.get(id)).status);
    for (let i = 0; i < 400; i++) {
      const s = (await f.get(id)).status;
      seen.add(s);
      if (s === target) return;
      await f.run(250, 250);
    }
    assert.fail(`never reached ${target}`);
  };
  assert.equal((await f.get(id)).status, 'toCreate');
  await watch('running');
  for (const s of ['toCreate', 'creating', 'pulling', 'running']) assert.ok(seen.has(s), `saw ${s} (${[...seen]})`);
  const r = await f.get(id);
  // a running instance's ports answer where the driver says (the sim: names that answer nothing)
  const at = (port: number) => `${id}.cls_local.gantry.local:${port}`;
  assert.deepEqual(r.portMappings, [{ port: 8888, type: 'http', endpoint: at(8888) }, { port: 3306, type: 'tcp', endpoint: at(3306) }]);
  assert.deepEqual(r.network.ports.map(({ address: _, ...p }: { address: string }) => p), r.portMappings);
  // the http port through Gantry's proxy, with a ticket (src/gateway/ports/ports.test.ts follows one); none for tcp
  assert.match(r.network.ports[0].address, new RegExp(`/ports/${id}/8888/\\?gantry_ticket=p1\\.`));
  assert.equal(r.network.ports[1].address, '');
  // no template lists a Jupyter tool (src/gateway/ports/ports.test.ts: one that does)
  assert.deepEqual(r.connectComponentJupyter, { port: 0, address: '', isRunning: false });
  const listed = (await f.owner.get(`${BASE}/gpu/instances`, {})).body.instances.find((i: { id: string }) => i.id === id);
  assert.deepEqual(listed.portMappings, r.portMappings, 'the list shows the same endpoints');
  assert.equal(r.gpuNum, '1');
  assert.equal(r.cpuNum, '16');
  assert.equal(r.memory, '62');
  assert.equal(r.endTime, '-1');
  assert.equal(r.clusterName, 'local');

  assert.equal((await f.owner.post(`${BASE}/gpu/instance/restart`, { instanceId: id })).status, 200);
  assert.equal((await f.get(id)).status, 'toRestart');
  await watch('running');
  assert.ok(seen.has('restarting'));
  assert.equal((await f.owner.post(`${BASE}/gpu/instance/stop`, { instanceId: id })).status, 200);
  await watch('exited');
  const stopped = await f.get(id);
  assert.deepEqual(stopped.portMappings.map((p: { endpoint: string }) => p.endpoint), ['', ''], 'an instance that does not run shows no endpoint');
  assert.deepEqual(stopped.network.ports.map((p: { endpoint: string }) => p.endpoint), ['', '']);
  assert.equal(stopped.connectComponentJupyter.isRunning, false);

  const up = await f.owner.post(`${BASE}/gpu/instance/upgrade`, {
    instanceId: id, imageUrl: 'repo/new:2', imageAuthId: '', envs: [{ key: 'B', value: 'c' }], command: 'run', save: true, networkVolume: { volumeMounts: [] },
  });
  assert.equal(up.status, 200, JSON.stringify(up.body));
  assert.equal((await f.get(id)).status, 'toReset');
  await watch('running');
  assert.ok(seen.has('resetting'));
  assert.equal((await f.get(id)).imageUrl, 'repo/new:2');

  assert.equal((await f.owner.post(`${BASE}/gpu/instance/stop`, { instanceId: id })).status, 200);
  assert.equal((await f.get(id)).status, 'toStop');
  await watch('exited');
  assert.ok(seen.has('stopping'));

  assert.equal((await f.owner.post(`${BASE}/gpu/instance/start`, { instanceId: id })).status, 200);
  assert.equal((await f.get(id)).status, 'toStart');
  await watch('running');
  assert.ok(seen.has('starting'));

  assert.equal((await f.owner.post(`${BASE}/gpu/instance/delete`, { instanceId: id })).status, 200);
  assert.equal((await f.get(id)).status, 'toRemove');
  await watch('removed');
  assert.ok(seen.has('removing'));
});

test('operator migration: running → migrating → running in the other cluster', async () => {
  const add = await f.admin.post('/admin/v1/gpu/clusters', { id: 'cls_b', name: 'second', region: 'r2' });
  assert.equal(add.status, 200, JSON.stringify(add.body));
  assert.equal((await f.admin.put(`/admin/v1/gpu/products/${PRODUCT}/inventory/cls_b`, { totalGpus: 8 })).status, 200);
  const id = await f.create({ clusterId: 'cls_local' });
  await f.until(id, 'running');
  const m = await f.admin.post(`/admin/v1/gpu/instances/${id}/migrate`, { clusterId: 'cls_b' });
  assert.equal(m.status, 200, JSON.stringify(m.body));
  assert.equal((await f.get(id)).status, 'migrating');
  const r = await f.until(id, 'running');
  assert.equal(r.clusterId, 'cls_b');
  assert.equal(r.clusterName, 'second');
});

test('the transition table decides: refused operations are 400 naming the state', async () => {
  const id = await f.create();
  await f.until(id, 'running');
  const s1 = await f.owner.post(`${BASE}/gpu/instance/start`, { instanceId: id });
  assert.equal(s1.status, 400);
  // the GPU family has no state reason: VALIDATOR_PARAM on the instance, naming the state
  assert.equal(s1.body.reason, 'VALIDATOR_PARAM');
  assert.match(s1.body.message, /cannot start .* it is running/);
  assert.equal(s1.body.metadata.state, 'running');
  assert.equal(s1.body.metadata.field, 'instanceId');
  await f.owner.post(`${BASE}/gpu/instance/stop`, { instanceId: id });
  await f.until(id, 'exited');
  const s2 = await f.owner.post(`${BASE}/gpu/instance/stop`, { instanceId: id });
  assert.equal(s2.status, 400);
  assert.match(s2.body.message, /cannot stop .* it is exited/);
  const s3 = await f.owner.post(`${BASE}/gpu/instance/restart`, { instanceId: id });
  assert.match(s3.body.message, /it is exited/);
  // every op the table refuses from `exited` is refused over HTTP, every allowed one is not
  for (const op of ['start', 'stop', 'restart'] as const) {
    assert.equal(Boolean(TRANSITIONS[op].exited), op === 'start');
  }
  await f.owner.post(`${BASE}/gpu/instance/delete`, { instanceId: id });
  await f.until(id, 'removed');
  for (const op of Object.keys(opPath)) {
    const r = await f.owner.post(`${BASE}/gpu/instance/${op}`, { instanceId: id });
    assert.equal(r.status, 400, op);
    assert.match(r.body.message, /it is removed/);
  }
  const e = await f.owner.post(`${BASE}/gpu/instance/edit`, { instanceId: id, ports: '80/http' });
  assert.match(e.body.message, /cannot edit .* it is removed/);
});

test('the transition table is total over operations and names only known states', () => {
  for (const op of OPERATIONS) {
    for (const [from, to] of Object.entries(TRANSITIONS[op])) {
      assert.ok((INSTANCE_STATUSES as readonly string[]).includes(from), `${op} from ${from}`);
      assert.ok((INSTANCE_STATUSES as readonly string[]).includes(to!), `${op} to ${to}`);
    }
    assert.equal(TRANSITIONS[op].removed, undefined, `${op} must refuse removed`);
  }
});

test('create validation: each rule is a 400 naming the field', async () => {
  const base = { name: 'v', productId: PRODUCT, gpuNum: 1, rootfsSize: 50, imageUrl: 'img:1', kind: 'gpu' };
  const cases: [Record<string, unknown>, string, string, string?][] = [
    [{ gpuNum: 0 }, 'gpuNum', '1-8'],
    [{ gpuNum: 9 }, 'gpuNum', '1-8'],
    [{ rootfsSize: 5 }, 'rootfsSize', '10-500'],
    [{ imageUrl: '' }, 'imageUrl', 'required'],
    [{ imageUrl: 'x'.repeat(501) }, 'imageUrl', '1-500'],
    [{ kind: 'tpu' }, 'kind', 'gpu or cpu'],
    [{ billingMode: 'weekly' }, 'billingMode', 'onDemand, monthly or spot'],
    [{ billingMode: 'monthly' }, 'month', '1-36'],
    [{ ports: '2222/tcp' }, 'ports', 'reserved'],
    [{ ports: '80/udp' }, 'ports', 'http or tcp'],
    [{ ports: 'eighty' }, 'ports', 'not <port>'],
    [{ command: 'x'.repeat(2048) }, 'command', '0-2047'],
    [{ entrypoint: 'x'.repeat(2048) }, 'entrypoint', '0-2047'],
    [{ envs: [{ key: 'k'.repeat(512), value: '' }] }, 'envs[0].key', '0-511'],
    [{ name: 'n'.repeat(256) }, 'name', '0-255'],
    [{ productId: 'prd_nope' }, '', 'not found', 'RESOURCE_NOT_FOUND'],
    [{ templateId: 'tpl_nope' }, '', 'not found', 'TEMPLATE_NOT_FOUND'],
    [{ imageAuthId: 'rga_nope' }, '', 'not found', 'RESOURCE_NOT_FOUND'],
    [{ clusterId: 'cls_nope' }, '', 'not found', 'RESOURCE_NOT_FOUND'],
    [{ networkStorages: [{ Id: 'ns_1', mountPoint: '/data' }] }, '', 'not found', 'NETWORK_STORAGE_NOT_FOUND'],
    [{ gpuNum: 8, clusterId: 'cls_local', name: 'big' }, '', '', undefined],
  ];
  for (const [patch, field, rule, reason] of cases) {
    const r = await f.owner.post(`${BASE}/gpu/instance/create`, { ...base, ...patch });
    if (reason === undefined && field === '') {
      assert.equal(r.status, 200, JSON.stringify(r.body));
      continue;
    }
    assert.equal(r.status, 400, `${JSON.stringify(patch).slice(0, 80)} → ${JSON.stringify(r.body)}`);
    assert.equal(r.body.reason, reason ?? 'VALIDATOR_PARAM', JSON.stringify(r.body));
    if (field) assert.equal(r.body.metadata.field, field, JSON.stringify(r.body));
    if (rule) assert.match(r.body.message, new RegExp(rule));
  }
});

test('inventory: more GPUs than a cluster has free is INSUFFICIENT_RESOURCE; stopping frees them', async () => {
  assert.equal((await f.admin.post('/admin/v1/gpu/clusters', { id: 'cls_tiny', name: 'tiny' })).status, 200);
  assert.equal((await f.admin.put(`/admin/v1/gpu/products/${PRODUCT}/inventory/cls_tiny`, { totalGpus: 2 })).status, 200);
  const a = await f.create({ clusterId: 'cls_tiny', gpuNum: 2 });
  const r = await f.owner.post(`${BASE}/gpu/instance/create`, { productId: PRODUCT, gpuNum: 1, rootfsSize: 50, imageUrl: 'i', kind: 'gpu', clusterId: 'cls_tiny' });
  assert.equal(r.status, 400);
  assert.equal(r.body.reason, 'INSUFFICIENT_RESOURCE');
  const p = await f.owner.get(`${BASE}/products`, { clusterId: 'cls_tiny' });
  assert.equal(p.body.data[0].inventoryState, 'none');
  assert.equal(p.body.data[0].availableDeploy, false);
  await f.until(a, 'running');
  await f.owner.post(`${BASE}/gpu/instance/stop`, { instanceId: a });
  await f.until(a, 'exited');
  const b = await f.create({ clusterId: 'cls_tiny', gpuNum: 2 });
  // a's GPUs are now b's: a cannot start again
  const s = await f.owner.post(`${BASE}/gpu/instance/start`, { instanceId: a });
  assert.equal(s.status, 400);
  assert.equal(s.body.reason, 'INSUFFICIENT_RESOURCE');
  assert.ok(b);
});

test('create from a template takes its image, ports, envs, command and disk', async () => {
  const r = await f.create({ templateId: 'tpl_official_vllm', imageUrl: undefined, rootfsSize: undefined, name: 'from-tpl' });
  const g = await f.get(r);
  assert.equal(g.imageUrl, 'vllm/vllm-openai:v0.6.4');
  assert.equal(g.rootfsSize, 100);
  assert.deepEqual(g.portMappings, [{ port: 8000, type: 'http', endpoint: '' }], 'no endpoint before it runs');
  assert.deepEqual(g.envs, [{ key: 'MODEL', value: 'Qwen/Qwen2.5-7B-Instruct' }]);
  assert.match(g.entrypoint, /vllm/);
  assert.equal(g.templateId, 'tpl_official_vllm');
});

test('edit: ports replaced, root disk only grows', async () => {
  const id = await f.create({ rootfsSize: 50 });
  const e = await f.owner.post(`${BASE}/gpu/instance/edit`, { instanceId: id, ports: '80/http', expandRootDisk: 60 });
  assert.equal(e.status, 400, 'toCreate is not editable');
  await f.until(id, 'running');
  const ok = await f.owner.post(`${BASE}/gpu/instance/edit`, { instanceId: id, ports: '80/http', expandRootDisk: 60 });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  const g = await f.get(id);
  assert.deepEqual(g.portMappings.map((p: { port: number; type: string }) => ({ port: p.port, type: p.type })), [{ port: 80, type: 'http' }]);
  assert.equal(g.rootfsSize, 60);
  const shrink = await f.owner.post(`${BASE}/gpu/instance/edit`, { instanceId: id, expandRootDisk: 40 });
  assert.equal(shrink.status, 400);
  assert.equal(shrink.body.metadata.field, 'expandRootDisk');
});

test('list: fuzzy name, fuzzy productName, status, paging and total', async () => {
  const team = await createTeam(f.t.app, f.t.creds.adminToken);
  await topup(f.t.app, f.t.creds.adminToken, team.userId, 10_000_000);
  const o = as(f.t.app, team.owner.apiKey);
  const ids: string[] = [];
  for (let i = 0; i < 7; i++) {
    f.t.clock.advance(1000);
    const r = await o.post(`${BASE}/gpu/instance/create`, { name: i % 2 ? `Alpha-${i}` : `beta-${i}`, productId: PRODUCT, gpuNum: 1, rootfsSize: 50, imageUrl: 'i', kind: 'gpu' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    ids.push(r.body.id);
  }
  await o.post(`${BASE}/gpu/instance/delete`, { instanceId: ids[0] });
  const all = await o.get(`${BASE}/gpu/instances`, { pageSize: 3, pageNum: 1 });
  assert.equal(all.status, 200);
  assert.equal(all.body.total, 7);
  assert.deepEqual(all.body.instances.map((x: any) => x.id), [ids[6], ids[5], ids[4]]);
  const p0 = await o.get(`${BASE}/gpu/instances`, { pageSize: 3, pageNum: 0 });
  assert.deepEqual(p0.body.instances.map((x: any) => x.id), [ids[6], ids[5], ids[4]]);
  const p3 = await o.get(`${BASE}/gpu/instances`, { pageSize: 3, pageNumber: 3 });
  assert.deepEqual(p3.body.instances.map((x: any) => x.id), [ids[0]]);
  const alpha = await o.get(`${BASE}/gpu/instances`, { name: 'alPHA' });
  assert.equal(alpha.body.total, 3);
  assert.ok(alpha.body.instances.every((x: any) => x.name.startsWith('Alpha')));
  assert.equal((await o.get(`${BASE}/gpu/instances`, { productName: '4090' })).body.total, 7);
  assert.equal((await o.get(`${BASE}/gpu/instances`, { productName: 'H100' })).body.total, 0);
  const rm = await o.get(`${BASE}/gpu/instances`, { status: 'toRemove' });
  assert.deepEqual(rm.body.instances.map((x: any) => x.id), [ids[0]]);
  assert.equal((await o.get(`${BASE}/gpu/instances`, { status: 'toCreate', name: 'beta' })).body.total, 3);
  const bad = await o.get(`${BASE}/gpu/instances`, { status: 'sleeping' });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.metadata.field, 'status');
  // types of the interface: strings where it says so
  const x = all.body.instances[0];
  for (const k of ['cpuNum', 'memory', 'gpuNum', 'endTime', 'spotReclaimTime']) assert.equal(typeof x[k], 'string', k);
  assert.equal(typeof x.rootfsSize, 'number');
});

test('another team\'s instance answers as if it did not exist', async () => {
  const id = await f.create();
  const other = await createTeam(f.t.app, f.t.creds.adminToken);
  const o = as(f.t.app, other.owner.apiKey);
  const g = await o.get(`${BASE}/gpu/instance`, { instanceId: id });
  assert.equal(g.status, 400);
  assert.equal(g.body.reason, 'RESOURCE_NOT_FOUND');
  assert.equal((await o.post(`${BASE}/gpu/instance/stop`, { instanceId: id })).body.reason, 'RESOURCE_NOT_FOUND');
  assert.equal((await o.get(`${BASE}/gpu/instances`)).body.total, 0);
});

test('roles: Basic reads instances but cannot change them; Billing sees nothing', async () => {
  const id = await f.create();
  const basic = as(f.t.app, f.team.members.Basic.apiKey);
  const billing = as(f.t.app, f.team.members.Billing.apiKey);
  const dev = as(f.t.app, f.team.members.Developer.apiKey);
  assert.equal((await basic.get(`${BASE}/gpu/instances`)).status, 200);
  assert.equal((await basic.get(`${BASE}/gpu/instance`, { instanceId: id })).status, 200);
  assert.equal((await basic.get(`${BASE}/products`)).status, 200);
  for (const op of ['stop', 'start', 'restart', 'delete']) {
    const r = await basic.post(`${BASE}/gpu/instance/${op}`, { instanceId: id });
    assert.equal(r.status, 403, op);
    assert.equal(r.body.reason, 'FORBIDDEN');
  }
  assert.equal((await basic.post(`${BASE}/gpu/instance/create`, { productId: PRODUCT, gpuNum: 1, rootfsSize: 50, imageUrl: 'i', kind: 'gpu' })).status, 403);
  for (const [url, q] of [[`${BASE}/gpu/instances`, {}], [`${BASE}/gpu/instance`, { instanceId: id }], [`${BASE}/products`, {}], [`${BASE}/clusters`, {}], [`${BASE}/repository/auths`, {}]] as const) {
    assert.equal((await billing.get(url, q)).status, 403, url);
  }
  assert.equal((await dev.post(`${BASE}/gpu/instance/stop`, { instanceId: id })).status, 200);
});

test('products and clusters lists with their filters', async () => {
  const p = await f.owner.get(`${BASE}/products`);
  assert.equal(p.status, 200);
  const prod = p.body.data.find((x: any) => x.id === PRODUCT);
  assert.equal(prod.price, '3500');
  assert.equal(prod.spotPrice, '1750');
  assert.deepEqual(prod.monthlyPrice[0], { price: '2000000', month: 1 });
  assert.deepEqual(prod.billingMethods, ['onDemand', 'monthly', 'spot']);
  assert.ok(['none', 'low', 'normal', 'high'].includes(prod.inventoryState));
  assert.equal((await f.owner.get(`${BASE}/products`, { productName: 'rtx' })).body.data.length >= 1, true);
  assert.equal((await f.owner.get(`${BASE}/products`, { productName: 'h100' })).body.data.length, 0);
  assert.equal((await f.owner.get(`${BASE}/products`, { clusterId: 'cls_missing' })).body.data.length, 0);
  assert.equal((await f.owner.get(`${BASE}/products`, { billingMethod: 'spot' })).body.data.length >= 1, true);
  // the interface's billing-method codes (1 pay-as-you-go, 2 subscription, 4 spot) select the same
  for (const code of ['1', '2', '4']) {
    assert.ok((await f.owner.get(`${BASE}/products`, { billingMethod: code })).body.data.some((x: any) => x.id === PRODUCT), code);
  }
  assert.equal((await f.owner.get(`${BASE}/products`, { billingMethod: '3' })).body.data.length, 0);
  const typo = await f.owner.get(`${BASE}/products`, { billingMethod: 'ondemnd' });
  assert.equal(typo.status, 400);
  assert.equal(typo.body.reason, 'VALIDATOR_PARAM');
  assert.equal(typo.body.metadata.field, 'billingMethod');
  assert.equal((await f.owner.get(`${BASE}/products`, { gpuNum: 1000 })).body.data[0].availableDeploy, false);
  const c = await f.owner.get(`${BASE}/clusters`);
  const local = c.body.data.find((x: any) => x.id === 'cls_local');
  assert.deepEqual(local.availableGpuType, ['RTX 4090']);
  assert.equal(typeof local.supportNetworkStorage, 'boolean');
});

test('registry credentials: sealed at rest, never returned, used by the instance', async () => {
  const s = await f.owner.post(`${BASE}/repository/auth/save`, { name: 'ghcr', username: 'bob', password: 'hunter2-secret' });
  assert.equal(s.status, 200, JSON.stringify(s.body));
  const l = await f.owner.get(`${BASE}/repository/auths`);
  assert.ok(!JSON.stringify(l.body).includes('hunter2'));
  assert.deepEqual(l.body.data.map((x: any) => x.username), ['bob']);
  const raw = await f.t.store.db.execute(`select password_enc from registry_auths where id = '${s.body.id}'` as never) as unknown as { rows: { password_enc: string }[] };
  assert.ok(!raw.rows[0]!.password_enc.includes('hunter2'));
  assert.ok(!Buffer.from(raw.rows[0]!.password_enc, 'base64').toString('latin1').includes('hunter2'));
  const id = await f.create({ imageUrl: 'ghcr.io/bob/private:1', imageAuthId: s.body.id });
  assert.equal((await f.get(id)).imageAuthId, s.body.id);
  assert.ok(!JSON.stringify(await f.get(id)).includes('hunter2'));
  // an inline imageAuth is stored sealed too, and referred to by id
  const inline = await f.create({ imageUrl: 'ghcr.io/bob/private:2', imageAuth: 'bob:pa55word' });
  const g = await f.get(inline);
  assert.match(g.imageAuthId, /^rga_/);
  assert.ok(!JSON.stringify(g).includes('pa55word'));
  const d = await f.owner.post(`${BASE}/repository/auth/delete`, { id: s.body.id });
  assert.equal(d.status, 200);
  assert.equal((await f.owner.post(`${BASE}/repository/auth/delete`, { id: s.body.id })).body.reason, 'RESOURCE_NOT_FOUND');
});
