// What the vendor's own clients send works unchanged (compat.md, "leniency for official
// clients"): missing paging and filters read as documented defaults, `channel` lists, `env`
// for `envs`; out-of-range values are still refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam, topup } from '../../../../test/helpers/factories.ts';
import { publishTemplate } from '../../../domain/compute/templates.ts';
import { BASE, PRODUCT, fixture, type Fixture } from '../../../../test/helpers/compute-fixture.ts';

let f: Fixture;
before(async () => {
  f = await fixture();
  // a community template beside the seeded official ones (the operator publishes those)
  await publishTemplate(f.t.services.ctx, 'tpl_community_comfy', { name: 'ComfyUI', type: 'instance', channel: 'community', image: 'comfy/comfyui:1', rootfsSize: 50 });
});
after(() => f.close());

const tpl = (name: string) => ({ name, type: 'instance', channel: 'private', image: 'repo/img:1', rootfsSize: 40 });

function expect400(r: { status: number; body: any }, field: string, rulePart: string | RegExp) {
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.equal(r.body.reason, 'VALIDATOR_PARAM', JSON.stringify(r.body));
  assert.equal(r.body.metadata.field, field, JSON.stringify(r.body));
  assert.match(r.body.message, rulePart instanceof RegExp ? rulePart : new RegExp(rulePart.replace(/[()[\]]/g, '\\$&')), r.body.message);
}

test('GET /templates: missing channel is all three channels the caller may see; missing isMyCommunity reads as channel == private', async () => {
  const team = await createTeam(f.t.app, f.t.creds.adminToken);
  const o = as(f.t.app, team.owner.apiKey);
  const mine = (await o.post(`${BASE}/template/create`, { template: tpl('mine') })).body.templateId;
  const theirs = (await f.owner.post(`${BASE}/template/create`, { template: tpl('theirs') })).body.templateId;
  const ids = (r: any) => r.body.template.map((t: any) => t.Id).sort();
  const all = ['tpl_community_comfy', 'tpl_official_pytorch', 'tpl_official_vllm', mine].sort();

  const bare = await o.get(`${BASE}/templates`);
  assert.equal(bare.status, 200, JSON.stringify(bare.body));
  assert.deepEqual(ids(bare), all);
  assert.equal(bare.body.total, 4);
  assert.ok(!ids(bare).includes(theirs), 'another team\'s private template stays invisible');
  assert.deepEqual(ids(await o.get(`${BASE}/templates`, { channel: '' })), all, 'an empty channel is a missing one');

  // comma-joined channels, as a vendor client sends them; no isMyCommunity
  assert.deepEqual(ids(await o.get(`${BASE}/templates`, { channel: 'official,community' })), ['tpl_community_comfy', 'tpl_official_pytorch', 'tpl_official_vllm']);
  assert.deepEqual(ids(await o.get(`${BASE}/templates`, { channel: 'community' })), ['tpl_community_comfy']);
  assert.deepEqual(ids(await o.get(`${BASE}/templates`, { channel: 'private' })), [mine]);
  assert.deepEqual(ids(await o.get(`${BASE}/templates`, { channel: 'private,community' })), ['tpl_community_comfy', mine].sort());
  // with isMyCommunity the interface's reading holds
  assert.deepEqual(ids(await o.get(`${BASE}/templates`, { channel: 'official,community,private', isMyCommunity: false })), ['tpl_community_comfy', 'tpl_official_pytorch', 'tpl_official_vllm']);
  assert.deepEqual(ids(await o.get(`${BASE}/templates`, { channel: 'private', isMyCommunity: true })), [mine]);
  assert.deepEqual(ids(await o.get(`${BASE}/templates`, { isMyCommunity: true })), [mine]);
  // filters still apply to the union
  assert.deepEqual(ids(await o.get(`${BASE}/templates`, { name: 'MIN' })), [mine]);

  // out-of-range values are refused
  expect400(await o.get(`${BASE}/templates`, { channel: 'official,public' }), 'channel', 'got "public"');
  expect400(await o.get(`${BASE}/templates`, { channel: 'private', isMyCommunity: false }), 'channel', 'isMyCommunity=true');
  const notBool = await o.get(`${BASE}/templates`, { isMyCommunity: 'maybe' });
  assert.equal(notBool.status, 400);
  assert.equal(notBool.body.metadata.field, 'isMyCommunity');
});

test('missing paging reads as pageSize 10, pageNum 1 on every paged GPU list; out-of-range paging is refused', async () => {
  const team = await createTeam(f.t.app, f.t.creds.adminToken);
  await topup(f.t.app, f.t.creds.adminToken, team.userId, 10_000_000);
  const o = as(f.t.app, team.owner.apiKey);
  const created: string[] = [];
  for (let i = 0; i < 11; i++) {
    f.t.clock.advance(1000);
    const r = await o.post(`${BASE}/gpu/instance/create`, { name: `n${i}`, productId: PRODUCT, gpuNum: 1, rootfsSize: 50, imageUrl: 'i', kind: 'gpu' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    created.push(r.body.id);
    await o.post(`${BASE}/template/create`, { template: tpl(`t${i}`) });
    const s = await o.post(`${BASE}/networkstorage/create`, { storageName: `s${i}`, clusterId: 'cls_local', storageSize: 1 });
    assert.equal(s.status, 200, JSON.stringify(s.body));
  }
  const inst = await o.get(`${BASE}/gpu/instances`);
  assert.equal(inst.status, 200, JSON.stringify(inst.body));
  assert.equal(inst.body.total, 11);
  assert.deepEqual(inst.body.instances.map((x: any) => x.id), created.slice(1).reverse(), 'the first page of 10, newest first');
  assert.deepEqual((await o.get(`${BASE}/gpu/instances`, { pageNum: 2 })).body.instances.map((x: any) => x.id), [created[0]]);
  assert.equal((await o.get(`${BASE}/gpu/instances`, { pageSize: 0 })).body.instances.length, 10);

  const tl = await o.get(`${BASE}/templates`, { channel: 'private' });
  assert.equal(tl.body.total, 11);
  assert.equal(tl.body.template.length, 10);
  assert.equal(tl.body.pageSize, 10);
  assert.equal(tl.body.pageNum, 1);

  const sl = await o.get(`${BASE}/networkstorages/list`);
  assert.equal(sl.body.total, 11);
  assert.equal(sl.body.data.length, 10);
  assert.equal((await o.get(`${BASE}/networkstorages/list`, { pageNo: 2 })).body.data.length, 1);

  // the largest page is 100
  assert.equal((await o.get(`${BASE}/gpu/instances`, { pageSize: 100 })).body.instances.length, 11);
  expect400(await o.get(`${BASE}/gpu/instances`, { pageSize: 101 }), 'pageSize', 'must be an integer in 0-100');
  expect400(await o.get(`${BASE}/gpu/instances`, { pageNum: 1_000_001 }), 'pageNum', 'must be an integer in 0-1000000');
  expect400(await o.get(`${BASE}/templates`, { pageSize: 101 }), 'pageSize', 'must be an integer in 0-100');
  expect400(await o.get(`${BASE}/templates`, { pageNumber: 1_000_001 }), 'pageNum', 'must be an integer in 0-1000000');
  expect400(await o.get(`${BASE}/networkstorages/list`, { pageSize: 101 }), 'pageSize', 'must be an integer in 0-100');
  expect400(await o.get(`${BASE}/networkstorages/list`, { pageNo: 1_000_001 }), 'pageNo', 'must be an integer in 0-1000000');
  const negative = await o.get(`${BASE}/gpu/instances`, { pageSize: -1 });
  assert.equal(negative.status, 400);
  assert.equal(negative.body.metadata.field, 'pageSize');

  // the unpaged lists need no parameter at all
  for (const url of [`${BASE}/products`, `${BASE}/clusters`, `${BASE}/repository/auths`]) assert.equal((await o.get(url)).status, 200, url);
});

test('env is an alias of envs: template create and update, instance create; both at once must agree', async () => {
  const envs = [{ key: 'A', value: '1' }];
  const c = await f.owner.post(`${BASE}/template/create`, { template: { ...tpl('aliased'), env: envs } });
  assert.equal(c.status, 200, JSON.stringify(c.body));
  const id = c.body.templateId;
  assert.deepEqual((await f.owner.get(`${BASE}/template`, { templateId: id })).body.template.envs, envs);
  const u = await f.owner.post(`${BASE}/template/update`, { template: { ...tpl('aliased'), Id: id, env: [{ key: 'B', value: '2' }] } });
  assert.equal(u.status, 200, JSON.stringify(u.body));
  assert.deepEqual((await f.owner.get(`${BASE}/template`, { templateId: id })).body.template.envs, [{ key: 'B', value: '2' }]);
  // the same pairs under both names are fine; different ones are ambiguous
  assert.equal((await f.owner.post(`${BASE}/template/create`, { template: { ...tpl('both'), env: envs, envs } })).status, 200);
  expect400(await f.owner.post(`${BASE}/template/create`, { template: { ...tpl('both'), env: envs, envs: [] } }), 'template.env', 'alias of envs');
  // limits name the field the client sent
  expect400(await f.owner.post(`${BASE}/template/create`, { template: { ...tpl('bad'), env: [{ key: 'k'.repeat(512), value: '' }] } }), 'template.env[0].key', '0-511');
  expect400(await f.owner.post(`${BASE}/template/create`, { template: { ...tpl('bad'), env: Array.from({ length: 101 }, (_, i) => ({ key: `K${i}`, value: '' })) } }), 'template.env', 'at most 100');

  const inst = await f.create({ env: [{ key: 'X', value: 'y' }] });
  assert.deepEqual((await f.get(inst)).envs, [{ key: 'X', value: 'y' }]);
  // an instance from a template takes the template's envs unless given, under either name
  const fromTpl = await f.create({ templateId: id, imageUrl: undefined, rootfsSize: undefined });
  assert.deepEqual((await f.get(fromTpl)).envs, [{ key: 'B', value: '2' }]);
  const overridden = await f.create({ templateId: id, env: [] });
  assert.deepEqual((await f.get(overridden)).envs, []);
  expect400(await f.owner.post(`${BASE}/gpu/instance/create`, {
    productId: PRODUCT, gpuNum: 1, rootfsSize: 50, imageUrl: 'i', kind: 'gpu', env: [{ key: 'K', value: 'v'.repeat(4096) }],
  }), 'env[0].value', '0-4095');
  expect400(await f.owner.post(`${BASE}/gpu/instance/create`, {
    productId: PRODUCT, gpuNum: 1, rootfsSize: 50, imageUrl: 'i', kind: 'gpu', env: envs, envs: [{ key: 'Z', value: '' }],
  }), 'env', 'alias of envs');
});

test('template names are 1-255 characters on update too', async () => {
  const id = (await f.owner.post(`${BASE}/template/create`, { template: tpl('named') })).body.templateId;
  expect400(await f.owner.post(`${BASE}/template/update`, { template: { ...tpl(''), Id: id } }), 'template.name', '1-255');
  expect400(await f.owner.post(`${BASE}/template/update`, { template: { ...tpl('x'.repeat(256)), Id: id } }), 'template.name', '1-255');
  expect400(await f.owner.post(`${BASE}/template/update`, { template: { ...tpl('ok'), Id: id, ports: [{ type: 'http', ports: [1, 2, 3, 4, 5, 6] }, { type: 'tcp', ports: [7, 8, 9, 10, 11] }] } }), 'template.ports', 'at most 10 exposed ports in total');
  assert.equal((await f.owner.get(`${BASE}/template`, { templateId: id })).body.template.name, 'named', 'nothing written');
});
