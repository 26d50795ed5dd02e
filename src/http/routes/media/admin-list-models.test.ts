// GET /admin/v1/media/models through HTTP: only public records (never a team's upload), the
// filters and keyset cursor of GET /v3/model, each record with its size and times; a tenant
// key is refused (operator routes take the operator token only).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam } from '../../../../test/helpers/factories.ts';
import { importModel, uploadModel } from '../../../../test/helpers/media.ts';

test('the operator lists the public records: filters, cursor pages, size and times; no team upload', async () => {
  const t = await buildTestApp();
  try {
    const team = await createTeam(t.app, t.creds.adminToken);
    const op = as(t.app, t.creds.adminToken);
    await importModel(t, { type: 'checkpoint', sd_name: 'base_xl.safetensors', is_sdxl: true }, Buffer.alloc(2048, 1));
    t.clock.advance(5000);
    await importModel(t, { type: 'lora', sd_name: 'ink.safetensors', tags: ['sumi-e'], source: 'training' });
    await importModel(t, { type: 'vae', sd_name: 'vae.pt' });
    assert.equal((await uploadModel(t, team.owner.apiKey, { type: 'lora', sd_name: 'team_only.safetensors' })).status, 200);

    const all = await op.get('/admin/v1/media/models');
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.deepEqual(all.body.models.map((m: any) => m.sd_name), ['base_xl.safetensors', 'ink.safetensors', 'vae.pt']);
    const [base, ink] = all.body.models;
    assert.equal(base.bytes, 2048);
    assert.equal(ink.created_at - base.created_at, 5);
    assert.equal(base.updated_at, base.created_at);
    assert.equal(base.status, 1);
    assert.match(base.download_url, /\/blobs\/media\/models\//);
    assert.equal(all.body.pagination.next_cursor, '');

    assert.deepEqual((await op.get('/admin/v1/media/models', { 'filter.types': 'lora,vae' })).body.models.map((m: any) => m.sd_name), ['ink.safetensors', 'vae.pt']);
    assert.deepEqual((await op.get('/admin/v1/media/models', { 'filter.query': 'SUMI' })).body.models.map((m: any) => m.sd_name), ['ink.safetensors']);
    assert.deepEqual((await op.get('/admin/v1/media/models', { 'filter.source': 'training' })).body.models.map((m: any) => m.sd_name), ['ink.safetensors']);
    assert.deepEqual((await op.get('/admin/v1/media/models', { 'filter[is_sdxl]': 'true' })).body.models.map((m: any) => m.sd_name), ['base_xl.safetensors']);

    // cursor pages
    const p1 = await op.get('/admin/v1/media/models', { 'pagination.limit': '2' });
    assert.deepEqual(p1.body.models.map((m: any) => m.sd_name), ['base_xl.safetensors', 'ink.safetensors']);
    const p2 = await op.get('/admin/v1/media/models', { 'pagination.limit': '2', 'pagination.cursor': p1.body.pagination.next_cursor });
    assert.deepEqual(p2.body.models.map((m: any) => m.sd_name), ['vae.pt']);
    assert.equal(p2.body.pagination.next_cursor, '');

    // a re-import replaces the record: updated_at moves, created_at stays
    t.clock.advance(60_000);
    await importModel(t, { type: 'vae', sd_name: 'vae.pt' }, 'new bytes');
    const vae = (await op.get('/admin/v1/media/models', { 'filter.types': 'vae' })).body.models[0];
    assert.equal(vae.updated_at - vae.created_at, 60);

    // bad values name the parameter; a tenant key is no operator
    for (const [k, v] of [['pagination.limit', '0'], ['pagination.cursor', 'x'], ['filter.types', 'model']]) {
      const r = await op.get('/admin/v1/media/models', { [k!]: v! });
      assert.equal(r.status, 400, `${k}=${v}`);
      assert.equal(r.body.metadata.field, k);
    }
    assert.equal((await as(t.app, team.owner.apiKey).get('/admin/v1/media/models')).status, 401);
  } finally {
    await t.close();
  }
});
