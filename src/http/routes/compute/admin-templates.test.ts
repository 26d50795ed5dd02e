// Official and community templates published and retired by the operator through the admin
// API: every team sees a published one and creates from it; a retired one leaves the lists
// and creates, while the instances made from it keep running as they are.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, fixture, type Fixture } from '../../../../test/helpers/compute-fixture.ts';

let f: Fixture;
before(async () => {
  f = await fixture();
});
after(() => f.close());

const template = (over: Record<string, unknown> = {}) => ({
  name: 'ComfyUI', readme: '# ComfyUI', type: 'instance', channel: 'community', image: 'comfy/comfyui:1', rootfsSize: 60,
  ports: [{ type: 'http', ports: [8188] }], envs: [{ key: 'MODE', value: 'gpu' }], ...over,
});
const listed = async (channel: string) => (await f.owner.get(`${BASE}/templates`, { channel, isMyCommunity: false, pageSize: 100 })).body.template.map((t: { Id: string }) => t.Id);

test('the operator publishes a community template: every team lists it and creates from it; retired, it leaves lists and creates, its instances keep running', async () => {
  const put = await f.admin.put('/admin/v1/gpu/templates/tpl_community_comfy', {
    template: template(), tools: [{ name: 'ComfyUI', describe: 'the web UI', port: 8188, type: 'http' }],
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.deepEqual(put.body, { templateId: 'tpl_community_comfy' });
  assert.ok((await listed('community')).includes('tpl_community_comfy'));
  const got = (await f.owner.get(`${BASE}/template`, { templateId: 'tpl_community_comfy' })).body.template;
  assert.equal(got.image, 'comfy/comfyui:1');
  assert.equal(got.tools[0].port, 8188);

  const id = await f.create({ templateId: 'tpl_community_comfy', imageUrl: undefined, rootfsSize: undefined, name: 'comfy' });
  await f.until(id, 'running');

  assert.equal((await f.admin.post('/admin/v1/gpu/templates/tpl_community_comfy/retire')).status, 200);
  assert.ok(!(await listed('community')).includes('tpl_community_comfy'), 'a retired template leaves the lists');
  const refused = await f.owner.post(`${BASE}/gpu/instance/create`, {
    name: 'late', productId: 'prd_rtx4090_24g', gpuNum: 1, kind: 'gpu', templateId: 'tpl_community_comfy',
  });
  assert.equal(refused.status, 400, JSON.stringify(refused.body));
  assert.equal(refused.body.metadata.field, 'templateId');
  assert.match(refused.body.message, /retired/);
  await f.run(5_000);
  const kept = await f.get(id);
  assert.equal(kept.status, 'running', 'the instance made from it keeps running');
  assert.equal(kept.templateId, 'tpl_community_comfy');
  assert.equal(kept.imageUrl, 'comfy/comfyui:1');

  // published again: back in the lists and creates
  assert.equal((await f.admin.put('/admin/v1/gpu/templates/tpl_community_comfy', { template: template({ name: 'ComfyUI 2' }) })).status, 200);
  assert.ok((await listed('community')).includes('tpl_community_comfy'));
  await f.create({ templateId: 'tpl_community_comfy', imageUrl: undefined, rootfsSize: undefined, name: 'again' });
});

test('publishing and retiring are refused for what is not a published template', async () => {
  const priv = await f.admin.put('/admin/v1/gpu/templates/tpl_mine', { template: template({ channel: 'private' }) });
  assert.equal(priv.status, 400);
  assert.equal(priv.body.metadata.field, 'template.channel');
  const badId = await f.admin.put('/admin/v1/gpu/templates/Not-An-Id', { template: template() });
  assert.equal(badId.status, 400);
  assert.equal(badId.body.metadata.field, 'id');

  const own = await f.owner.post(`${BASE}/template/create`, { template: template({ channel: 'private' }) });
  assert.equal(own.status, 200, JSON.stringify(own.body));
  const ownId = own.body.templateId as string;
  assert.equal((await f.admin.post(`/admin/v1/gpu/templates/${ownId}/retire`)).status, 404, 'a team\'s private template is not the operator\'s to retire');
  assert.equal((await f.admin.put(`/admin/v1/gpu/templates/${ownId}`, { template: template() })).status, 400, 'nor to overwrite');
  assert.equal((await f.owner.get(`${BASE}/template`, { templateId: ownId })).body.template.channel, 'private');
  assert.equal((await f.admin.post('/admin/v1/gpu/templates/tpl_nope/retire')).status, 404);
  assert.equal((await f.owner.put('/admin/v1/gpu/templates/tpl_x', { template: template() })).status, 401, 'a tenant key is not the operator');
});
