// PNGs whose image data is not what their header declares, sent as a hostile tenant sends
// them (issue 40): refused with a 400 of the media family naming the field and the rule
// (`declared_size`, `max_pixels`, `max_side`), never decoded past their header's size, never
// a 5xx or a 200; a team that cannot pay makes the server decode nothing; a refusal after
// the admission leaves nothing written and nothing held. The server's memory under such PNGs
// at full size: hostile-images.process.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam, topup, type Team } from '../../../../test/helpers/factories.ts';
import { importModel } from '../../../../test/helpers/media.ts';
import { rgbaDataBytes, zeroPng } from '../../../../test/helpers/hostile-png.ts';
import { b64, paint } from '../../../../test/helpers/images.ts';
import { pixelPoolStats } from '../../../domain/media/pixel-pool.ts';

async function withApp(fn: (t: TestApp, rich: Team, poor: Team) => Promise<void>): Promise<void> {
  const t = await buildTestApp({ env: { GANTRY_MEDIA_IMAGE_PRICE: '30' } });
  try {
    const rich = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, rich.userId, 100_000);
    await importModel(t, { type: 'checkpoint', sd_name: 'base.safetensors' });
    await fn(t, rich, await createTeam(t.app, t.creds.adminToken));
  } finally {
    await t.close();
  }
}

const MIB = 1 << 20;
/** 64×64 RGBA: its data must inflate to 16,448 bytes; this one's inflates to 16 MiB (a 17 KB PNG, no more than stored pixels could take) */
const bomb = () => zeroPng(64, 64, 16 * MIB);
/** 1×1 RGBA (5 bytes of data) whose data inflates to 64 MiB: more compressed data than such an image can hold */
const tinyBomb = () => zeroPng(1, 1, 64 * MIB);

function refused(r: { status: number; body: any }, field: string, rule: string): void {
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.equal(r.body.reason, 'INVALID_REQUEST_BODY');
  assert.equal(r.body.metadata.field, field, JSON.stringify(r.body));
  assert.equal(r.body.metadata.rule, rule, JSON.stringify(r.body));
  assert.match(r.body.message, new RegExp(`^${field.replace('.', '\\.')}: `));
}

test('image data that inflates past what the header declares is refused naming the field and the rule, in each image operation', async () => {
  await withApp(async (t, rich) => {
    const key = rich.owner.apiKey;
    const img2img = (png: Buffer) => ({ request: { model_name: 'base.safetensors', prompt: 'x', width: 128, height: 128, image_base64: b64(png) } });
    const cases: [string, Record<string, unknown>, string][] = [
      ['/v3/remove-background', { image_file: b64(bomb()) }, 'image_file'],
      ['/v3/cleanup', { image_file: b64(await paint(64, 64, () => [9, 9, 9])), mask_file: b64(bomb()) }, 'mask_file'],
      ['/v3/async/img2img', img2img(bomb()), 'request.image_base64'],
      ['/v3/async/upscale', { request: { model_name: 'RealESRGAN_x4plus_anime_6B', image_base64: b64(bomb()), scale_factor: 2 } }, 'request.image_base64'],
    ];
    for (const [url, body, field] of cases) {
      const r = await as(t.app, key).post(url, body);
      refused(r, field, 'declared_size');
      assert.match(r.body.message, /inflates to more than the 16448 bytes its IHDR declares \(64×64\)/);
    }
    // a 1×1 image's data is judged by its header alone: more compressed bytes than 5 bytes of pixels can take
    const tiny = await as(t.app, key).post('/v3/remove-text', { image_file: b64(tinyBomb()) });
    refused(tiny, 'image_file', 'declared_size');
    assert.match(tiny.body.message, /bytes of image data is more than a 1×1 image holds/);
    // short data is refused too (it was decoded into a partly blank image)
    refused(await as(t.app, key).post('/v3/remove-background', { image_file: b64(zeroPng(64, 64, rgbaDataBytes(64, 64) - 257)) }), 'image_file', 'declared_size');
    // the pixel limit and the side limit hold, from the header
    refused(await as(t.app, key).post('/v3/remove-background', { image_file: b64(zeroPng(4096, 4096, 1000)) }), 'image_file', 'max_pixels');
    refused(await as(t.app, key).post('/v3/remove-background', { image_file: b64(zeroPng(4096, 2, 1000)) }), 'image_file', 'max_side');
    // nothing refused became a task, nothing is held or charged
    assert.deepEqual((await as(t.app, key).get('/v3/async/tasks')).body.tasks, []);
    const balance = (await as(t.app, key).get('/openapi/v1/billing/balance/detail')).body;
    assert.equal(balance.pendingCharges, '0');
    assert.equal(balance.availableBalance, '100000');
    // and an honest image of the same size still works
    assert.equal((await as(t.app, key).post('/v3/remove-background', { image_file: b64(await paint(64, 64, () => [9, 9, 9])) })).status, 200);
  });
});

test('a team that cannot pay makes the server decode nothing: the admission refuses before the pixels are read', async () => {
  await withApp(async (t, _rich, poor) => {
    const before = pixelPoolStats().jobs;
    const r = await as(t.app, poor.owner.apiKey).post('/v3/remove-background', { image_file: b64(bomb()) });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.reason, 'BILLING_BALANCE_NOT_ENOUGH');
    const task = await as(t.app, poor.owner.apiKey).post('/v3/async/img2img', { request: { model_name: 'base.safetensors', prompt: 'x', width: 128, height: 128, image_base64: b64(bomb()) } });
    assert.equal(task.body.reason, 'BILLING_BALANCE_NOT_ENOUGH', JSON.stringify(task.body));
    assert.equal(pixelPoolStats().jobs, before, 'no pixel work for a team that cannot pay');
    // what the header alone tells is still a 400 naming the field, admission or not
    refused(await as(t.app, poor.owner.apiKey).post('/v3/remove-background', { image_file: b64(tinyBomb()) }), 'image_file', 'declared_size');
  });
});
