// Template image credentials: sealed at rest, masked in every read by every role, opened
// only for the driver of an instance made from the template.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { as } from '../../../../test/helpers/http.ts';
import { buildApp } from '../../../app.ts';
import { BASE, fixture, type Fixture } from '../../../../test/helpers/compute-fixture.ts';

let f: Fixture;
before(async () => {
  f = await fixture();
});
after(() => f.close());

const PASSWORD = 'Pl4nted-tpl-pw-7f3a9c';
const tpl = (imageAuth?: string) => ({
  name: 'private image', type: 'instance', channel: 'private', image: 'ghcr.io/acme/private:1', rootfsSize: 50,
  ...(imageAuth !== undefined ? { imageAuth } : {}),
});

async function createTemplate(imageAuth?: string): Promise<string> {
  const r = await f.owner.post(`${BASE}/template/create`, { template: tpl(imageAuth) });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.templateId;
}

async function row(id: string): Promise<{ image_auth: string; image_auth_enc: string }> {
  const r = await f.t.store.db.execute(sql`select image_auth, image_auth_enc from templates where id = ${id}`) as unknown as { rows: { image_auth: string; image_auth_enc: string }[] };
  return r.rows[0]!;
}

/** Every read of the template a member of each role may make. */
async function reads(id: string): Promise<{ role: string; body: any }[]> {
  const out: { role: string; body: any }[] = [];
  for (const role of ['Owner', 'Admin', 'Developer', 'Basic'] as const) {
    const c = as(f.t.app, f.team.members[role].apiKey);
    const g = await c.get(`${BASE}/template`, { templateId: id });
    assert.equal(g.status, 200, JSON.stringify(g.body));
    const l = await c.get(`${BASE}/templates`, { channel: 'private', isMyCommunity: true, pageSize: 100 });
    assert.equal(l.status, 200);
    out.push({ role, body: g.body.template }, { role, body: l.body.template.find((t: any) => t.Id === id) });
  }
  return out;
}

test('an inline imageAuth is sealed at rest and every role reads only "<username>:****"', async () => {
  const id = await createTemplate(`bob:${PASSWORD}`);
  const r = await row(id);
  assert.equal(r.image_auth, 'bob:****');
  assert.ok(r.image_auth_enc.length > 0);
  assert.ok(!JSON.stringify(r).includes(PASSWORD));
  assert.ok(!Buffer.from(r.image_auth_enc, 'base64').toString('latin1').includes(PASSWORD));
  for (const { role, body } of await reads(id)) {
    assert.equal(body.imageAuth, 'bob:****', role);
    assert.ok(!JSON.stringify(body).includes(PASSWORD), role);
  }
  // the same secret sealed twice gives two different ciphertexts (a fresh nonce each time)
  assert.notEqual((await row(await createTemplate(`bob:${PASSWORD}`))).image_auth_enc, r.image_auth_enc);
});

test('a credential id is kept and shown as given; one of another team or none is refused', async () => {
  const s = await f.owner.post(`${BASE}/repository/auth/save`, { name: 'ghcr', username: 'bob', password: PASSWORD });
  const id = await createTemplate(s.body.id);
  assert.deepEqual(await row(id), { image_auth: s.body.id, image_auth_enc: '' });
  for (const { body } of await reads(id)) assert.equal(body.imageAuth, s.body.id);
  const other = await (await import('../../../../test/helpers/factories.ts')).createTeam(f.t.app, f.t.creds.adminToken);
  const foreign = await as(f.t.app, other.owner.apiKey).post(`${BASE}/template/create`, { template: tpl(s.body.id) });
  assert.equal(foreign.status, 400);
  assert.equal(foreign.body.metadata.field, 'template.imageAuth');
  const none = await f.owner.post(`${BASE}/template/create`, { template: tpl('rga_0000000000000000000000') });
  assert.equal(none.body.metadata.field, 'template.imageAuth');
});

test('a malformed or too long imageAuth is refused without echoing it', async () => {
  for (const bad of [PASSWORD, `bob:`, `:${PASSWORD}`, `bob:${PASSWORD}${'x'.repeat(240)}`]) {
    const r = await f.owner.post(`${BASE}/template/create`, { template: tpl(bad) });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.reason, 'VALIDATOR_PARAM');
    assert.equal(r.body.metadata.field, 'template.imageAuth');
    assert.ok(!JSON.stringify(r.body).includes(PASSWORD), JSON.stringify(r.body));
  }
});

test('update: the mask written back keeps the credential; a new one replaces it; none clears it', async () => {
  const id = await createTemplate(`bob:${PASSWORD}`);
  const before = await row(id);
  const g = (await f.owner.get(`${BASE}/template`, { templateId: id })).body.template;
  const { Id, createdAt: _c, tools: _t, recommendCards: _r, ...body } = g;
  const u = await f.owner.post(`${BASE}/template/update`, { template: { ...body, Id, name: 'renamed' } });
  assert.equal(u.status, 200, JSON.stringify(u.body));
  assert.deepEqual(await row(id), before, 'read-modify-write keeps the sealed credential');
  await f.owner.post(`${BASE}/template/update`, { template: { ...tpl('alice:n3w-pass'), Id: id } });
  assert.equal((await row(id)).image_auth, 'alice:****');
  assert.notEqual((await row(id)).image_auth_enc, before.image_auth_enc);
  await f.owner.post(`${BASE}/template/update`, { template: { ...tpl(), Id: id } });
  assert.deepEqual(await row(id), { image_auth: '', image_auth_enc: '' });
});

test('an instance from the template pulls with the template\'s credential; the driver alone gets the password', async () => {
  const id = await createTemplate(`bob:${PASSWORD}`);
  const a = await f.create({ imageUrl: undefined, rootfsSize: undefined, templateId: id });
  const b = await f.create({ imageUrl: undefined, rootfsSize: undefined, templateId: id });
  await f.t.services.compute.reconcile();
  const spec = f.sim.specOf(a);
  assert.deepEqual(spec?.imagePullAuth, { server: 'ghcr.io', username: 'bob', password: PASSWORD });
  const ia = await f.get(a);
  const ib = await f.get(b);
  assert.match(ia.imageAuthId, /^rga_/);
  assert.equal(ib.imageAuthId, ia.imageAuthId, 'instances of one template share one stored credential');
  for (const x of [ia, ib, (await f.owner.get(`${BASE}/gpu/instances`, { pageSize: 100 })).body, (await f.owner.get(`${BASE}/repository/auths`)).body]) {
    assert.ok(!JSON.stringify(x).includes(PASSWORD));
  }
  // the request's own credential wins over the template's
  const s = await f.owner.post(`${BASE}/repository/auth/save`, { name: 'mine', username: 'carol', password: 'c4rol-pw' });
  const c = await f.create({ imageUrl: undefined, rootfsSize: undefined, templateId: id, imageAuthId: s.body.id });
  await f.t.services.compute.reconcile();
  assert.equal(f.sim.specOf(c)?.imagePullAuth?.username, 'carol');
});

test('at start, a clear imageAuth stored before sealing existed is sealed (ids stay), once', async () => {
  const s = await f.owner.post(`${BASE}/repository/auth/save`, { name: 'legacy', username: 'dan', password: 'd4n-pw' });
  const clear = await createTemplate();
  const byId = await createTemplate();
  // rows as an older Gantry wrote them
  await f.t.store.db.execute(sql`update templates set image_auth = ${`dan:${PASSWORD}`} where id = ${clear}`);
  await f.t.store.db.execute(sql`update templates set image_auth = ${s.body.id} where id = ${byId}`);
  const restart = async () => {
    const built = await buildApp({ config: f.t.config, store: f.t.store, clock: f.t.clock, logger: false, runBackground: false });
    await built.app.close();
  };
  await restart();
  const sealed = await row(clear);
  assert.equal(sealed.image_auth, 'dan:****');
  assert.ok(sealed.image_auth_enc && !sealed.image_auth_enc.includes(PASSWORD));
  assert.deepEqual(await row(byId), { image_auth: s.body.id, image_auth_enc: '' });
  await restart();
  assert.deepEqual(await row(clear), sealed, 'sealing twice changes nothing');
  // and the sealed credential still reaches the driver
  const i = await f.create({ imageUrl: undefined, rootfsSize: undefined, templateId: clear });
  await f.t.services.compute.reconcile();
  assert.equal(f.sim.specOf(i)?.imagePullAuth?.password, PASSWORD);
});
