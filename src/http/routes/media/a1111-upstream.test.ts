// An AUTOMATIC1111 / Forge web UI as the image upstream (GANTRY_MEDIA_IMAGE_UPSTREAM_KIND=
// a1111), against a stand-in that implements its published API (test/helpers/a1111.ts):
// txt2img, img2img, inpainting and upscale reach the right endpoints with the catalogue's
// names (the checkpoint and VAE selected by /sdapi/v1/options, LoRAs in the prompt), the
// source images and mask as sent, the --api-auth credentials; two tasks never interleave
// select and generate; a refusal fails the task unbilled; operations the web UI does not
// have are refused by name; an OpenAI-compatible upstream refuses what it cannot run; the web
// UI's extra-network syntax (<lora:…>, <lyco:…>, <hypernet:…>) in a prompt, or in a name Gantry
// writes into one, is refused and never reaches the web UI (another team's private LoRA stays out).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam, topup, type Team } from '../../../../test/helpers/factories.ts';
import { fetchLink, importModel, uploadModel } from '../../../../test/helpers/media.ts';
import { b64, decode, paint } from '../../../../test/helpers/images.ts';
import { startA1111, type A1111StandIn } from '../../../../test/helpers/a1111.ts';
import { pngSize } from '../../../lib/png.ts';

async function withA1111(fn: (t: TestApp, team: Team, ui: A1111StandIn) => Promise<void>): Promise<void> {
  const ui = await startA1111('gantry:s3cret');
  const t = await buildTestApp({
    env: { GANTRY_MEDIA_IMAGE_UPSTREAM: `${ui.url}/`, GANTRY_MEDIA_IMAGE_UPSTREAM_KIND: 'a1111', GANTRY_MEDIA_IMAGE_UPSTREAM_KEY: 'gantry:s3cret', GANTRY_MEDIA_IMAGE_PRICE: '30' },
  });
  try {
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100_000);
    await importModel(t, { type: 'checkpoint', sd_name: 'base.safetensors' });
    await importModel(t, { type: 'checkpoint', sd_name: 'other.safetensors' });
    await importModel(t, { type: 'lora', sd_name: 'ink.safetensors' });
    await importModel(t, { type: 'textualinversion', sd_name: 'easyneg.pt' });
    await importModel(t, { type: 'vae', sd_name: 'vae-ft-mse.safetensors' });
    await fn(t, team, ui);
  } finally {
    await t.close();
    await ui.close();
  }
}

async function ended(t: TestApp, key: string, id: string) {
  await t.services.jobs.runDue();
  return (await as(t.app, key).get('/v3/async/task-result', { task_id: id })).body;
}

async function sizes(t: TestApp, result: any) {
  const out = [];
  for (const im of result.images) out.push(pngSize((await fetchLink(t, im.image_url)).bytes));
  return out;
}

const calls = (ui: A1111StandIn, path: string) => ui.calls.filter((c) => c.path === `/sdapi/v1/${path}`);

test('txt2img on the web UI: the checkpoint, VAE and clip skip selected by options, LoRAs and embeddings in the prompt, Basic auth', async () => {
  await withA1111(async (t, team, ui) => {
    const key = team.owner.apiKey;
    const r = await as(t.app, key).post('/v3/async/txt2img', {
      request: {
        model_name: 'base.safetensors', prompt: 'a lighthouse', negative_prompt: 'blurry', width: 320, height: 256, image_num: 2, seed: 11, steps: 25,
        guidance_scale: 6, sampler_name: 'DPM++ 2M Karras', clip_skip: 2, sd_vae: 'vae-ft-mse.safetensors',
        loras: [{ model_name: 'ink', strength: 0.7 }], embeddings: [{ model_name: 'easyneg' }],
      },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const done = await ended(t, key, r.body.task_id);
    assert.equal(done.task.status, 'TASK_STATUS_SUCCEED', JSON.stringify(done));
    assert.deepEqual(await sizes(t, done), [{ width: 320, height: 256 }, { width: 320, height: 256 }]);
    const [options] = calls(ui, 'options');
    assert.deepEqual(options!.body, { sd_model_checkpoint: 'base.safetensors', sd_vae: 'vae-ft-mse.safetensors', CLIP_stop_at_last_layers: 2, samples_format: 'png' });
    const [gen] = calls(ui, 'txt2img');
    assert.equal(gen!.checkpoint, 'base.safetensors', 'generated with the checkpoint the request named');
    assert.equal(gen!.authorization, `Basic ${Buffer.from('gantry:s3cret').toString('base64')}`);
    assert.equal(gen!.body.prompt, 'a lighthouse, easyneg, <lora:ink:0.7>');
    assert.deepEqual(
      [gen!.body.negative_prompt, gen!.body.width, gen!.body.height, gen!.body.batch_size, gen!.body.n_iter, gen!.body.seed, gen!.body.steps, gen!.body.cfg_scale, gen!.body.sampler_name],
      ['blurry', 320, 256, 2, 1, 11, 25, 6, 'DPM++ 2M Karras'],
    );
    // without a VAE the checkpoint's own is used (the web UI's "Automatic")
    const plain = await as(t.app, key).post('/v3/async/txt2img', { request: { model_name: 'other.safetensors', prompt: 'a boat', width: 128, height: 128 } });
    assert.equal((await ended(t, key, plain.body.task_id)).task.status, 'TASK_STATUS_SUCCEED');
    assert.equal(calls(ui, 'options').at(-1)!.body.sd_vae, 'Automatic');
    assert.equal(calls(ui, 'txt2img').at(-1)!.checkpoint, 'other.safetensors');
  });
});

test('img2img, inpainting (img2img with mask) and upscale (extra-single-image) on the web UI, with the images as sent', async () => {
  await withA1111(async (t, team, ui) => {
    const key = team.owner.apiKey;
    const src = await paint(96, 64, (x, y) => [x * 2, y * 3, 90]);
    const mask = await paint(96, 64, (x) => (x > 48 ? [255, 255, 255] : [0, 0, 0]));
    const i2i = await as(t.app, key).post('/v3/async/img2img', {
      request: { model_name: 'other.safetensors', prompt: 'in ink', image_base64: b64(src), width: 192, height: 128, strength: 0.35, seed: 5 },
    });
    const inp = await as(t.app, key).post('/v3/async/inpainting', {
      request: { model_name: 'base.safetensors', prompt: 'a door', image_base64: b64(src), mask_image_base64: `data:image/png;base64,${b64(mask)}`, mask_blur: 6, inpainting_mask_invert: 1, seed: 9 },
    });
    const up = await as(t.app, key).post('/v3/async/upscale', { request: { model_name: 'RealESRGAN_x4plus_anime_6B', image_base64: b64(src), scale_factor: 2 } });
    for (const r of [i2i, inp, up]) assert.equal(r.status, 200, JSON.stringify(r.body));
    const [a, b, c] = [await ended(t, key, i2i.body.task_id), await ended(t, key, inp.body.task_id), await ended(t, key, up.body.task_id)];
    for (const r of [a, b, c]) assert.equal(r.task.status, 'TASK_STATUS_SUCCEED', JSON.stringify(r));
    assert.deepEqual(await sizes(t, a), [{ width: 192, height: 128 }]);
    assert.deepEqual(await sizes(t, b), [{ width: 96, height: 64 }], 'inpainting keeps the source size');
    assert.deepEqual(await sizes(t, c), [{ width: 192, height: 128 }]);

    // the two tasks run side by side (their images decoded on the pixel pool): the web UI may see either first
    const plain = calls(ui, 'img2img').find((c) => c.body.mask === undefined);
    const masked = calls(ui, 'img2img').find((c) => c.body.mask !== undefined);
    assert.equal(calls(ui, 'img2img').length, 2);
    assert.equal(plain!.checkpoint, 'other.safetensors');
    assert.deepEqual(decode(Buffer.from(plain!.body.init_images[0], 'base64')), decode(src), 'the source image as sent');
    assert.deepEqual([plain!.body.denoising_strength, plain!.body.width, plain!.body.height, plain!.body.mask], [0.35, 192, 128, undefined]);
    assert.equal(masked!.checkpoint, 'base.safetensors');
    assert.deepEqual(decode(Buffer.from(masked!.body.mask, 'base64')), decode(mask), 'the mask as sent (its data: prefix removed)');
    assert.deepEqual([masked!.body.mask_blur, masked!.body.inpainting_mask_invert, masked!.body.denoising_strength, masked!.body.width], [6, 1, 1, 96]);
    const [ups] = calls(ui, 'extra-single-image');
    assert.deepEqual([ups!.body.upscaler_1, ups!.body.upscaling_resize], ['R-ESRGAN 4x+ Anime6B', 2]);
    assert.deepEqual(decode(Buffer.from(ups!.body.image, 'base64')), decode(src));
  });
});

test('extra-network syntax in a prompt or a model name is refused, naming the field and the rule, and never reaches the web UI', async () => {
  await withA1111(async (t, team, ui) => {
    const key = team.owner.apiKey;
    // another team's private LoRA, on the same web UI
    const victim = await createTeam(t.app, t.creds.adminToken);
    assert.equal((await uploadModel(t, victim.owner.apiKey, { type: 'lora', sd_name: 'secret-style.safetensors' })).status, 200);
    // a name of the team's own that would close Gantry's tag and open one of its own
    assert.equal((await uploadModel(t, key, { type: 'lora', sd_name: 'mine:1><lora:secret-style.safetensors' })).status, 200);
    const src = b64(await paint(64, 64, () => [10, 20, 30]));
    const base = { model_name: 'base.safetensors', prompt: 'a lighthouse', width: 128, height: 128 };
    const refusals: [op: string, request: Record<string, unknown>, field: string, found: string][] = [
      ['txt2img', { ...base, prompt: 'a lighthouse, <lora:secret-style:1>' }, 'request.prompt', '<lora:'],
      ['txt2img', { ...base, prompt: 'a lighthouse <lyco:secret-style:0.8>' }, 'request.prompt', '<lyco:'],
      ['txt2img', { ...base, negative_prompt: 'blurry, <hypernet:secret-style:1>' }, 'request.negative_prompt', '<hypernet:'],
      // left open, it would close on the tag Gantry appends for loras[]
      ['txt2img', { ...base, prompt: 'a lighthouse <lora:secret-style', loras: [{ model_name: 'ink' }] }, 'request.prompt', '<lora:'],
      ['txt2img', { ...base, prompt: 'a lighthouse <LoRA:secret-style:1>' }, 'request.prompt', '<LoRA:'],
      ['txt2img', { ...base, loras: [{ model_name: 'mine:1><lora:secret-style' }] }, 'request.loras[0].model_name', ':'],
      ['img2img', { ...base, image_base64: src, prompt: 'in ink <lora:secret-style:1>' }, 'request.prompt', '<lora:'],
      ['inpainting', { model_name: 'base.safetensors', prompt: 'a door', negative_prompt: '<lora:secret-style:-1>', image_base64: src, mask_image_base64: src }, 'request.negative_prompt', '<lora:'],
    ];
    for (const [op, request, field, found] of refusals) {
      const r = await as(t.app, key).post(`/v3/async/${op}`, { request });
      assert.equal(r.status, 400, `${op} ${JSON.stringify(request.prompt)}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.reason, 'INVALID_REQUEST_BODY');
      assert.deepEqual([r.body.metadata.field, r.body.metadata.rule, r.body.metadata.found], [field, 'no_extra_network_syntax', found]);
      assert.match(r.body.message, /extra-network syntax.*request\.loras/);
    }
    // the other team's LoRA by name in loras[] was refused before (the catalogue the team sees)
    const named = await as(t.app, key).post('/v3/async/txt2img', { request: { ...base, loras: [{ model_name: 'secret-style' }] } });
    assert.deepEqual([named.status, named.body.metadata.field], [400, 'request.loras[0].model_name']);
    await t.services.jobs.runDue();
    assert.deepEqual(ui.calls.filter((c) => c.path !== '/sdapi/v1/options'), [], 'nothing was generated');

    // angle brackets and colons that are not a tag pass as written
    const plain = await as(t.app, key).post('/v3/async/txt2img', { request: { ...base, prompt: 'a sign reading <open 24/7> at 10:30, <3', loras: [{ model_name: 'ink' }] } });
    assert.equal(plain.status, 200, JSON.stringify(plain.body));
    assert.equal((await ended(t, key, plain.body.task_id)).task.status, 'TASK_STATUS_SUCCEED');
    const sent = calls(ui, 'txt2img').map((c) => [c.body.prompt, c.body.negative_prompt]);
    assert.deepEqual(sent, [['a sign reading <open 24/7> at 10:30, <3, <lora:ink:1>', '']]);
  });
});

test('tasks on the web UI take turns: each generation runs with its own checkpoint, however slow the selection', async () => {
  await withA1111(async (t, team, ui) => {
    const key = team.owner.apiKey;
    ui.optionsDelayMs = 50; // a slow model load: without turns, the second task's selection lands before the first generates
    const ids = [];
    for (const [i, model] of ['base.safetensors', 'other.safetensors', 'base.safetensors', 'other.safetensors'].entries()) {
      const r = await as(t.app, key).post('/v3/async/txt2img', { request: { model_name: model, prompt: `task ${i} with ${model}`, width: 128, height: 128 } });
      ids.push(r.body.task_id);
    }
    await t.services.jobs.runDue();
    for (const id of ids) assert.equal((await ended(t, key, id)).task.status, 'TASK_STATUS_SUCCEED');
    const gens = calls(ui, 'txt2img');
    assert.equal(gens.length, 4);
    for (const g of gens) assert.equal(g.checkpoint, /with (\S+)$/.exec(g.body.prompt)![1], g.body.prompt);
  });
});

test('a refusal of the web UI fails the task unbilled; operations it does not have are refused by name before anything is charged', async () => {
  await withA1111(async (t, team, ui) => {
    const key = team.owner.apiKey;
    const before = (await as(t.app, key).get('/openapi/v1/billing/balance/detail')).body;
    const r = await as(t.app, key).post('/v3/async/txt2img', { request: { model_name: 'base.safetensors', prompt: 'x', width: 128, height: 128, sampler_name: 'No Such Sampler' } });
    const failed = await ended(t, key, r.body.task_id);
    assert.equal(failed.task.status, 'TASK_STATUS_FAILED');
    assert.match(failed.task.reason, /refused the task \(404\).*Sampler not found/);
    assert.equal(calls(ui, 'txt2img').length, 1, 'a refusal is not retried');
    const src = b64(await paint(32, 32, () => [1, 2, 3]));
    for (const op of ['remove-background', 'remove-text', 'cleanup', 'merge-face', 'replace-background']) {
      const refused = await as(t.app, key).post(`/v3/${op}`, { image_file: src, mask_file: src, face_image_file: src, prompt: 'a beach' });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.body.metadata.operation, op);
      assert.match(refused.body.message, /AUTOMATIC1111\/Forge web UI API.*GANTRY_MEDIA_IMAGE_UPSTREAM_KIND=a1111/);
    }
    const after = (await as(t.app, key).get('/openapi/v1/billing/balance/detail')).body;
    assert.deepEqual([after.availableBalance, after.pendingCharges], [before.availableBalance, '0']);
  });
});

test('an OpenAI-compatible image upstream runs txt2img only: img2img, inpainting and upscale are refused by name', async () => {
  const t = await buildTestApp({ env: { GANTRY_MEDIA_IMAGE_UPSTREAM: 'http://127.0.0.1:9/v1' } });
  try {
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100_000);
    const src = b64(await paint(32, 32, () => [1, 2, 3]));
    for (const [op, request] of [
      ['img2img', { model_name: 'x', prompt: 'x', image_base64: src, width: 128, height: 128 }],
      ['inpainting', { model_name: 'x', prompt: 'x', image_base64: src, mask_image_base64: src }],
      ['upscale', { model_name: 'RealESRNet_x4plus', image_base64: src, scale_factor: 2 }],
    ] as const) {
      const r = await as(t.app, team.owner.apiKey).post(`/v3/async/${op}`, { request });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.metadata.operation, op);
      assert.match(r.body.message, /OpenAI-compatible images server/);
    }
  } finally {
    await t.close();
  }
});
