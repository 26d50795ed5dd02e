import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { as } from '../../../../test/helpers/http.ts';
import { BASE, fixture, type Fixture } from '../../../../test/helpers/compute-fixture.ts';

let f: Fixture;
before(async () => {
  f = await fixture({ topupUnits: 0 });
});
after(() => f.close());

const full = () => ({
  name: 'my template', readme: '# hi', type: 'instance', channel: 'private', image: 'repo/img:1', imageAuth: '',
  startCommand: 'python serve.py', entrypoint: '/bin/bash', rootfsSize: 40,
  ports: [{ type: 'http', ports: [8080, 8888] }, { type: 'tcp', ports: [22] }],
  envs: [{ key: 'A', value: '1' }], minCudaVersion: '12.1',
});

async function create(body: Record<string, unknown>) {
  return f.owner.post(`${BASE}/template/create`, { template: body });
}

function expect400(r: { status: number; body: any }, field: string, rulePart: string) {
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.equal(r.body.reason, 'VALIDATOR_PARAM');
  assert.equal(r.body.code, 400);
  assert.equal(r.body.metadata.field, field, JSON.stringify(r.body));
  assert.match(r.body.message, new RegExp(rulePart), r.body.message);
}

test('create with every field, get it back with capital Id, list it as private', async () => {
  const r = await create(full());
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const id = r.body.templateId;
  assert.match(id, /^tpl_/);
  const g = await f.owner.get(`${BASE}/template`, { templateId: id });
  assert.equal(g.status, 200);
  const t = g.body.template;
  assert.equal(t.Id, id);
  assert.equal(t.id, undefined);
  assert.deepEqual({ ...t, Id: undefined, createdAt: undefined, tools: undefined, recommendCards: undefined }, { ...full(), Id: undefined, createdAt: undefined, tools: undefined, recommendCards: undefined });
  assert.match(t.createdAt, /^\d+$/);
  const l = await f.owner.get(`${BASE}/templates`, { channel: 'private', isMyCommunity: true });
  assert.equal(l.status, 200);
  assert.ok(l.body.template.some((x: any) => x.Id === id));
  assert.equal(typeof l.body.total, 'number');
  assert.equal(l.body.pageNum, 1);
});

test('every limit of the interface is a 400 naming the field and the rule', async () => {
  const cases: [Record<string, unknown>, string, string][] = [
    [{ name: '' }, 'template.name', '1-255'],
    [{ name: 'x'.repeat(256) }, 'template.name', '1-255'],
    [{ readme: 'x'.repeat(102401) }, 'template.readme', '0-102400'],
    [{ type: 'endpoint' }, 'template.type', 'instance'],
    [{ channel: 'official' }, 'template.channel', 'private'],
    [{ image: '' }, 'template.image', '1-500'],
    [{ image: 'x'.repeat(501) }, 'template.image', '1-500'],
    [{ imageAuth: 'x'.repeat(256) }, 'template.imageAuth', '0-255'],
    [{ startCommand: 'x'.repeat(2048) }, 'template.startCommand', '0-2047'],
    [{ entrypoint: 'x'.repeat(2048) }, 'template.entrypoint', '0-2047'],
    [{ rootfsSize: 0 }, 'template.rootfsSize', 'greater than 0'],
    [{ rootfsSize: -5 }, 'template.rootfsSize', 'greater than 0'],
    [{ ports: [{ type: 'udp', ports: [80] }] }, 'template.ports[0].type', 'http or tcp'],
    [{ ports: [{ type: 'http', ports: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] }] }, 'template.ports[0].ports', 'at most 10'],
    // the limit is on the template, every entry's ports together
    [{ ports: [{ type: 'http', ports: [1, 2, 3, 4, 5, 6] }, { type: 'tcp', ports: [7, 8, 9, 10, 11] }] }, 'template.ports', 'at most 10 exposed ports in total, got 11'],
    [{ ports: Array.from({ length: 11 }, (_, i) => ({ type: 'tcp', ports: [100 + i] })) }, 'template.ports', 'at most 10 exposed ports in total, got 11'],
    [{ ports: [{ type: 'http', ports: [0] }] }, 'template.ports[0].ports[0]', '1-65535'],
    [{ ports: [{ type: 'http', ports: [65536] }] }, 'template.ports[0].ports[0]', '1-65535'],
    [{ ports: [{ type: 'tcp', ports: [80, 2222] }] }, 'template.ports[0].ports[1]', 'reserved'],
    [{ ports: [{ type: 'tcp', ports: [2223] }] }, 'template.ports[0].ports[0]', 'reserved'],
    [{ ports: [{ type: 'tcp', ports: [2224] }] }, 'template.ports[0].ports[0]', 'reserved'],
    [{ envs: Array.from({ length: 101 }, (_, i) => ({ key: `K${i}`, value: '' })) }, 'template.envs', 'at most 100'],
    [{ envs: [{ key: 'k'.repeat(512), value: '' }] }, 'template.envs[0].key', '0-511'],
    [{ envs: [{ key: 'K', value: 'v'.repeat(4096) }] }, 'template.envs[0].value', '0-4095'],
    [{ minCudaVersion: '1'.repeat(256) }, 'template.minCudaVersion', '0-255'],
  ];
  for (const [patch, field, rule] of cases) expect400(await create({ ...full(), ...patch }), field, rule);
  // the edges are allowed
  const edge = await create({
    ...full(), name: 'n'.repeat(255), readme: 'r'.repeat(102400), image: 'i'.repeat(500), startCommand: 'c'.repeat(2047),
    ports: [{ type: 'tcp', ports: [1, 2221, 2225, 65535, 5, 6, 7, 8, 9, 10] }],
    envs: Array.from({ length: 100 }, (_, i) => ({ key: i === 0 ? 'k'.repeat(511) : `K${i}`, value: i === 0 ? 'v'.repeat(4095) : '' })),
    minCudaVersion: '1'.repeat(255),
  });
  assert.equal(edge.status, 200, JSON.stringify(edge.body));
  const split = await create({ ...full(), ports: [{ type: 'http', ports: [80, 81, 82, 83, 84] }, { type: 'tcp', ports: [22, 23, 24, 25, 26] }] });
  assert.equal(split.status, 200, JSON.stringify(split.body));
  // limits count characters, not UTF-16 units: 255 emoji are a valid name, 256 are not
  const emoji = await create({ ...full(), name: '🚀'.repeat(255), readme: '文'.repeat(102400) });
  assert.equal(emoji.status, 200, JSON.stringify(emoji.body));
  expect400(await create({ ...full(), name: '🚀'.repeat(256) }), 'template.name', '1-255');
  // a missing required field is named too
  const { image: _i, ...noImage } = full();
  const r = await create(noImage);
  assert.equal(r.status, 400);
  assert.equal(r.body.reason, 'VALIDATOR_PARAM');
  assert.match(r.body.message, /image/);
});

test('seeded official templates carry tools and recommendCards; private ones stay private', async () => {
  const off = await f.owner.get(`${BASE}/templates`, { channel: 'official', isMyCommunity: false });
  assert.equal(off.status, 200);
  const names = off.body.template.map((t: any) => t.name).join('|');
  assert.match(names, /PyTorch/);
  assert.match(names, /vLLM/);
  for (const t of off.body.template) {
    assert.equal(t.channel, 'official');
    assert.ok(t.tools.length > 0 && t.recommendCards.length > 0);
    assert.equal(typeof t.recommendCards[0].cardNum, 'string');
  }
  assert.equal(off.body.total, off.body.template.length);
  // fuzzy name filter
  const v = await f.owner.get(`${BASE}/templates`, { channel: 'official', isMyCommunity: false, name: 'vll' });
  assert.deepEqual(v.body.template.map((t: any) => t.Id), ['tpl_official_vllm']);
  // another team sees neither the list entries nor the template itself
  const mine = (await create(full())).body.templateId;
  const other = await (await import('../../../../test/helpers/factories.ts')).createTeam(f.t.app, f.t.creds.adminToken);
  const o = as(f.t.app, other.owner.apiKey);
  const ol = await o.get(`${BASE}/templates`, { channel: 'private', isMyCommunity: true });
  assert.equal(ol.body.total, 0);
  const og = await o.get(`${BASE}/template`, { templateId: mine });
  assert.equal(og.status, 400);
  assert.equal(og.body.reason, 'TEMPLATE_NOT_FOUND');
  const od = await o.post(`${BASE}/template/delete`, { templateId: mine });
  assert.equal(od.body.reason, 'TEMPLATE_NOT_FOUND');
  // official templates are readable by everyone but not changeable by a tenant
  const d = await f.owner.post(`${BASE}/template/delete`, { templateId: 'tpl_official_vllm' });
  assert.equal(d.status, 400);
  assert.equal(d.body.metadata.field, 'templateId');
  // private templates and isMyCommunity=false contradict each other
  const bad = await f.owner.get(`${BASE}/templates`, { channel: 'private', isMyCommunity: false });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.metadata.field, 'channel');
});

test('update replaces the template (validated), delete removes it', async () => {
  const id = (await create(full())).body.templateId;
  const u = await f.owner.post(`${BASE}/template/update`, { template: { ...full(), Id: id, name: 'renamed', rootfsSize: 80 } });
  assert.equal(u.status, 200, JSON.stringify(u.body));
  assert.equal(u.body.templateId, id);
  const g = await f.owner.get(`${BASE}/template`, { templateId: id });
  assert.equal(g.body.template.name, 'renamed');
  assert.equal(g.body.template.rootfsSize, 80);
  expect400(await f.owner.post(`${BASE}/template/update`, { template: { ...full(), Id: id, rootfsSize: 0 } }), 'template.rootfsSize', 'greater than 0');
  const d = await f.owner.post(`${BASE}/template/delete`, { templateId: id });
  assert.equal(d.status, 200);
  assert.deepEqual(d.body, { templateId: id });
  const g2 = await f.owner.get(`${BASE}/template`, { templateId: id });
  assert.equal(g2.body.reason, 'TEMPLATE_NOT_FOUND');
});

test('paging: pageSize and 1-based pageNum (0 reads as 1, pageNumber alias)', async () => {
  const other = await (await import('../../../../test/helpers/factories.ts')).createTeam(f.t.app, f.t.creds.adminToken);
  const o = as(f.t.app, other.owner.apiKey);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    f.t.clock.advance(1000);
    ids.push((await o.post(`${BASE}/template/create`, { template: { ...full(), name: `t${i}` } })).body.templateId);
  }
  const p1 = await o.get(`${BASE}/templates`, { channel: 'private', isMyCommunity: true, pageSize: 2, pageNum: 1 });
  const p0 = await o.get(`${BASE}/templates`, { channel: 'private', isMyCommunity: true, pageSize: 2, pageNum: 0 });
  const p3 = await o.get(`${BASE}/templates`, { channel: 'private', isMyCommunity: true, pageSize: 2, pageNumber: 3 });
  assert.equal(p1.body.total, 5);
  assert.deepEqual(p1.body.template.map((t: any) => t.Id), [ids[4], ids[3]]);
  assert.deepEqual(p0.body.template.map((t: any) => t.Id), [ids[4], ids[3]]);
  assert.deepEqual(p3.body.template.map((t: any) => t.Id), [ids[0]]);
  assert.equal(p3.body.pageNum, 3);
});

test('roles: Basic reads templates but cannot change them; Billing sees nothing', async () => {
  const basic = as(f.t.app, f.team.members.Basic.apiKey);
  const billing = as(f.t.app, f.team.members.Billing.apiKey);
  const dev = as(f.t.app, f.team.members.Developer.apiKey);
  assert.equal((await basic.get(`${BASE}/templates`, { channel: 'official', isMyCommunity: false })).status, 200);
  assert.equal((await basic.get(`${BASE}/template`, { templateId: 'tpl_official_pytorch' })).status, 200);
  const bc = await basic.post(`${BASE}/template/create`, { template: full() });
  assert.equal(bc.status, 403);
  assert.equal(bc.body.reason, 'FORBIDDEN');
  assert.equal((await billing.get(`${BASE}/templates`, { channel: 'official', isMyCommunity: false })).status, 403);
  assert.equal((await billing.get(`${BASE}/template`, { templateId: 'tpl_official_pytorch' })).status, 403);
  assert.equal((await dev.post(`${BASE}/template/create`, { template: full() })).status, 200);
  assert.equal((await f.t.app.inject({ method: 'GET', url: `${BASE}/templates?channel=official&isMyCommunity=false` })).statusCode, 401);
});
