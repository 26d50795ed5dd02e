// `gantry admin media import` against a listening Gantry: a folder of <type>/ subfolders
// with sidecars, and a JSON manifest; the records it makes are what /v3/model lists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTestApp } from '../../test/helpers/app.ts';
import { as } from '../../test/helpers/http.ts';
import { createTeam } from '../../test/helpers/factories.ts';
import { sha256 } from '../../test/helpers/media.ts';
import { runMediaImport } from './media-import.ts';
import { toRequest } from './admin.ts';

test('media import: a folder (type subfolders, sidecars), then a manifest that replaces a record', async () => {
  const t = await buildTestApp();
  const dir = mkdtempSync(join(tmpdir(), 'gantry-media-import-'));
  try {
    const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const team = await createTeam(t.app, t.creds.adminToken);
    mkdirSync(join(dir, 'lora'));
    mkdirSync(join(dir, 'checkpoint'));
    writeFileSync(join(dir, 'lora', 'ink.safetensors'), 'ink bytes');
    writeFileSync(join(dir, 'checkpoint', 'fill.ckpt'), 'fill bytes');
    writeFileSync(join(dir, 'checkpoint', 'fill.ckpt.json'), JSON.stringify({ is_sdxl: true, base_model_type: 'Inpainting', tags: ['inpaint', 'xl'], source: 'training' }));
    const lines: string[] = [];
    assert.equal(await runMediaImport(dir, base, t.creds.adminToken, (l) => lines.push(l)), 0, lines.join('\n'));
    assert.match(lines.at(-1)!, /2 of 2 imported/);
    let models = (await as(t.app, team.owner.apiKey).get('/v3/model')).body.models;
    assert.deepEqual(models.map((m: any) => [m.type.name, m.sd_name_in_api, m.is_sdxl, m.base_model_type, m.source]).sort(), [
      ['checkpoint', 'fill.ckpt', true, 'Inpainting', 'training'], ['lora', 'ink', false, 'Standard', 'civitai'],
    ]);
    assert.deepEqual(models.find((m: any) => m.type.name === 'checkpoint').tags, ['inpaint', 'xl']);

    const manifest = join(dir, 'models.json');
    writeFileSync(join(dir, 'new-ink.bin'), 'new ink bytes');
    writeFileSync(manifest, JSON.stringify({ models: [{ file: 'new-ink.bin', type: 'lora', sd_name: 'ink.safetensors', name: 'Ink v2' }, { file: 'missing.bin', type: 'vae' }] }));
    lines.length = 0;
    assert.equal(await runMediaImport(manifest, base, t.creds.adminToken, (l) => lines.push(l)), 1, 'a missing file fails the run');
    models = (await as(t.app, team.owner.apiKey).get('/v3/model')).body.models;
    const ink = models.find((m: any) => m.sd_name_in_api === 'ink');
    assert.equal(models.length, 2, 'replaced, not added');
    assert.equal(ink.name, 'Ink v2');
    assert.equal(ink.hash_sha256, sha256(Buffer.from('new ink bytes')));
    assert.equal(await runMediaImport(join(dir, 'nothing-here'), base, t.creds.adminToken, () => {}), 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  }
});

test('media delete maps to the operator API', () => {
  assert.deepEqual(toRequest(['media', 'delete', '12']), { method: 'DELETE', path: '/admin/v1/media/models/12' });
});
