// Image operations through HTTP on the simulator: each does real, checkable work on the
// input's pixels (decoded back here): img2img's size and its mix of the source, inpainting
// changes the masked region only, upscale resamples, cleanup and remove-text fill from the
// surroundings, remove-background gives an alpha channel, replace-background keeps the
// foreground, merge-face puts one subject in place of another. Edits answer with the image
// and are tasks all the same (billed, readable, their safety job); bad inputs are 400s
// naming the field; video operations are refused, never 404.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam, topup, type Team } from '../../../../test/helpers/factories.ts';
import { fetchLink, importModel } from '../../../../test/helpers/media.ts';
import { b64, decode, diff, inDisc, paint, px } from '../../../../test/helpers/images.ts';
import { EDIT_LOST, EDIT_WATCH_MS } from '../../../domain/media/tasks.ts';

async function withApp(env: Record<string, string>, fn: (t: TestApp, team: Team) => Promise<void>): Promise<void> {
  const t = await buildTestApp({ env: { GANTRY_MEDIA_IMAGE_PRICE: '30', ...env } });
  try {
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100_000);
    await importModel(t, { type: 'checkpoint', sd_name: 'base.safetensors' });
    await importModel(t, { type: 'upscaler', sd_name: 'my-upscaler.pth' });
    await fn(t, team);
  } finally {
    await t.close();
  }
}

/** Run the queued tasks; the task's result and its images decoded. */
async function finish(t: TestApp, key: string, id: string) {
  await t.services.jobs.runDue();
  const r = await as(t.app, key).get('/v3/async/task-result', { task_id: id });
  assert.equal(r.body.task.status, 'TASK_STATUS_SUCCEED', JSON.stringify(r.body));
  const images = [];
  for (const im of r.body.images) images.push(decode((await fetchLink(t, im.image_url)).bytes));
  return { result: r.body, images };
}

async function balance(t: TestApp, key: string) {
  return (await as(t.app, key).get('/openapi/v1/billing/balance/detail')).body;
}

// a smooth source: a gradient with a dark disc
const source = (w: number, h: number) => paint(w, h, (x, y) => inDisc(x, y, w / 2, h / 2, h / 4) ? [20, 30, 40] : [Math.round(255 * x / w), Math.round(255 * y / h), 128]);

test('img2img: the requested size, `strength` of the way from the source; billed per image', async () => {
  await withApp({}, async (t, team) => {
    const key = team.owner.apiKey;
    const src = await source(200, 160);
    const ask = (over: Record<string, unknown>) => as(t.app, key).post('/v3/async/img2img', {
      request: { model_name: 'base.safetensors', prompt: 'a castle', image_base64: b64(src), width: 256, height: 192, seed: 7, ...over },
    });
    const before = await balance(t, key);
    const kept = await ask({ strength: 0 });
    assert.equal(kept.status, 200, JSON.stringify(kept.body));
    const mixed = await ask({ strength: 0.5, image_num: 2 });
    const a = await finish(t, key, kept.body.task_id);
    const b = await finish(t, key, mixed.body.task_id);
    assert.equal(a.result.task.task_type, 'IMG_TO_IMG');
    assert.equal(b.result.extra.seed, '7');
    for (const img of [...a.images, ...b.images]) assert.deepEqual([img.width, img.height], [256, 192]);
    // strength 0: the source, resized (its disc is still dark at the centre, the gradient at the corner)
    assert.ok(diff(px(a.images[0]!, 128, 96), [20, 30, 40]) < 3);
    assert.ok(diff(px(a.images[0]!, 255, 0), [254, 0, 128]) < 6, String(px(a.images[0]!, 255, 0)));
    // strength 0.5: half-way to new content, so neither the source nor equal to each other (seed, seed + 1)
    let moved = 0;
    for (let y = 0; y < 192; y += 8) for (let x = 0; x < 256; x += 8) if (diff(px(b.images[0]!, x, y), px(a.images[0]!, x, y)) > 10) moved++;
    assert.ok(moved > 300, `most of the image moved from the source (${moved} of 768 samples)`);
    assert.ok(!Buffer.from(b.images[0]!.data).equals(Buffer.from(b.images[1]!.data)));
    const after = await balance(t, key);
    assert.equal(BigInt(before.availableBalance) - BigInt(after.availableBalance), 90n, '3 images × 30');
  });
});

test('inpainting: the masked region changes, every other pixel is kept; invert swaps them; the source size', async () => {
  await withApp({}, async (t, team) => {
    const key = team.owner.apiKey;
    const src = await source(160, 120);
    const mask = await paint(160, 120, (x, y) => (x >= 40 && x < 100 && y >= 30 && y < 90 ? [255, 255, 255] : [0, 0, 0]));
    const inMask = (x: number, y: number) => x >= 40 && x < 100 && y >= 30 && y < 90;
    const ask = (over: Record<string, unknown>) => as(t.app, key).post('/v3/async/inpainting', {
      request: { model_name: 'base.safetensors', prompt: 'a window', image_base64: b64(src), mask_image_base64: b64(mask), seed: 3, mask_blur: 0, ...over },
    });
    const plain = await ask({});
    const inverted = await ask({ inpainting_mask_invert: 1 });
    assert.equal(plain.status, 200, JSON.stringify(plain.body));
    const original = decode(src);
    for (const [r, invert] of [[plain, false], [inverted, true]] as const) {
      const { result, images } = await finish(t, key, r.body.task_id);
      assert.equal(result.task.task_type, 'INPAINTING');
      const out = images[0]!;
      assert.deepEqual([out.width, out.height], [160, 120]);
      let changed = 0;
      let region = 0;
      for (let y = 0; y < 120; y++) {
        for (let x = 0; x < 160; x++) {
          const redrawn = inMask(x, y) !== invert;
          if (!redrawn) assert.deepEqual(px(out, x, y), px(original, x, y), `(${x}, ${y}) outside the region is kept`);
          else {
            region++;
            if (diff(px(out, x, y), px(original, x, y)) > 8) changed++;
          }
        }
      }
      assert.ok(changed > region * 0.8, `the region is redrawn (${changed} of ${region})`);
    }
  });
});

test('upscale: the source scale_factor times larger, resampled (not a copy); model names checked', async () => {
  await withApp({}, async (t, team) => {
    const key = team.owner.apiKey;
    const src = await source(100, 80);
    const r = await as(t.app, key).post('/v3/async/upscale', { request: { model_name: 'RealESRGAN_x4plus_anime_6B', image_base64: b64(src), scale_factor: 2 } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const { result, images } = await finish(t, key, r.body.task_id);
    assert.equal(result.task.task_type, 'UPSCALE');
    const out = images[0]!;
    assert.deepEqual([out.width, out.height], [200, 160]);
    const original = decode(src);
    for (const [x, y] of [[10, 10], [50, 40], [90, 70], [30, 60]] as const) {
      assert.ok(diff(px(out, 2 * x, 2 * y), px(original, x, y)) < 12, `(${x}, ${y}) is where it was, twice as far`);
    }
    // the catalogue's upscaler by its name; an unknown name, a checkpoint, a scale too large
    const mine = await as(t.app, key).post('/v3/async/upscale', { request: { model_name: 'my-upscaler.pth', image_base64: b64(src), scale_factor: 1.5 } });
    assert.equal(mine.status, 200, JSON.stringify(mine.body));
    assert.deepEqual([(await finish(t, key, mine.body.task_id)).images[0]!.width], [150]);
    for (const [req, field] of [
      [{ model_name: 'nope', scale_factor: 2 }, 'request.model_name'],
      [{ model_name: 'base.safetensors', scale_factor: 2 }, 'request.model_name'],
      [{ model_name: 'RealESRNet_x4plus', scale_factor: 5 }, 'scale_factor'],
    ] as const) {
      const bad = await as(t.app, key).post('/v3/async/upscale', { request: { image_base64: b64(src), ...req } });
      assert.equal(bad.status, 400, JSON.stringify(bad.body));
      assert.match(String(bad.body.metadata.field ?? bad.body.message), new RegExp(field.replace('.', '\\.')), JSON.stringify(bad.body));
    }
  });
});

const edit = (t: TestApp, key: string, op: string, body: Record<string, unknown>) => as(t.app, key).post(`/v3/${op}`, body);

test('cleanup and remove-text: what the mask (or the text) covers is filled from around it, the rest kept', async () => {
  await withApp({}, async (t, team) => {
    const key = team.owner.apiKey;
    const grey: [number, number, number] = [180, 180, 180];
    const withSquare = await paint(120, 100, (x, y) => (x >= 40 && x < 70 && y >= 30 && y < 60 ? [220, 20, 20] : grey));
    const mask = await paint(120, 100, (x, y) => (x >= 36 && x < 74 && y >= 26 && y < 64 ? [255, 255, 255] : [0, 0, 0]));
    const cleaned = await edit(t, key, 'cleanup', { image_file: b64(withSquare), mask_file: b64(mask) });
    assert.equal(cleaned.status, 200, JSON.stringify(cleaned.body));
    assert.equal(cleaned.body.image_type, 'png');
    const out = decode(Buffer.from(cleaned.body.image_file, 'base64'));
    assert.ok(diff(px(out, 55, 45), grey) < 2, `the square is gone: ${px(out, 55, 45)}`);
    assert.deepEqual(px(out, 5, 5), [...grey, 255]);

    // strokes 2 px wide (text) go; a 30 px block stays
    const text = await paint(160, 80, (x, y) => {
      const stroke = (y >= 20 && y < 22 && x >= 10 && x < 70) || (x >= 30 && x < 32 && y >= 10 && y < 60);
      const block = x >= 110 && x < 140 && y >= 25 && y < 55;
      return stroke || block ? [10, 10, 10] : [230, 230, 230];
    });
    const clean = await edit(t, key, 'remove-text', { image_file: b64(text) });
    assert.equal(clean.status, 200, JSON.stringify(clean.body));
    const noText = decode(Buffer.from(clean.body.image_file, 'base64'));
    for (const [x, y] of [[50, 20], [50, 21], [30, 40], [31, 50]] as const) assert.ok(diff(px(noText, x, y), [230, 230, 230]) < 20, `stroke at (${x}, ${y}) removed: ${px(noText, x, y)}`);
    assert.ok(diff(px(noText, 125, 40), [10, 10, 10]) < 5, 'the block is not text');
  });
});

test('remove-background gives an alpha channel; replace-background keeps the foreground; merge-face puts one subject in place of another', async () => {
  await withApp({}, async (t, team) => {
    const key = team.owner.apiKey;
    const subject = await paint(120, 100, (x, y) => (inDisc(x, y, 60, 50, 25) ? [230, 40, 30] : [30, 60, 200]));
    const removed = await edit(t, key, 'remove-background', { image_file: b64(subject) });
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    const cut = decode(Buffer.from(removed.body.image_file, 'base64'));
    assert.equal(px(cut, 2, 2)[3], 0, 'the background is transparent');
    assert.equal(px(cut, 110, 90)[3], 0);
    assert.deepEqual(px(cut, 60, 50), [230, 40, 30, 255], 'the subject is kept, opaque');

    const replaced = await edit(t, key, 'replace-background', { image_file: b64(subject), prompt: 'a beach at noon' });
    assert.equal(replaced.status, 200, JSON.stringify(replaced.body));
    const scene = decode(Buffer.from(replaced.body.image_file, 'base64'));
    assert.deepEqual(px(scene, 60, 50), [230, 40, 30, 255]);
    let moved = 0;
    for (const [x, y] of [[2, 2], [117, 2], [2, 97], [117, 97], [60, 5], [60, 95]] as const) if (diff(px(scene, x, y), [30, 60, 200]) > 10) moved++;
    assert.ok(moved >= 5, 'the background is new');
    const again = await edit(t, key, 'replace-background', { image_file: b64(subject), prompt: 'a beach at noon' });
    assert.equal(again.body.image_file, replaced.body.image_file, 'the same prompt, the same background');

    const face = await paint(80, 80, (x, y) => (inDisc(x, y, 40, 40, 20) ? [250, 220, 0] : [0, 160, 0]));
    const merged = await edit(t, key, 'merge-face', { face_image_file: b64(face), image_file: b64(subject) });
    assert.equal(merged.status, 200, JSON.stringify(merged.body));
    const m = decode(Buffer.from(merged.body.image_file, 'base64'));
    assert.deepEqual([m.width, m.height], [120, 100]);
    assert.ok(diff(px(m, 60, 50), [250, 220, 0]) < 10, `the face is in the subject's place: ${px(m, 60, 50)}`);
    assert.deepEqual(px(m, 3, 3), [30, 60, 200, 255], 'the rest of the image is kept');
  });
});

test('an edit is a task: its result readable, billed once, refused without balance; its safety job fails one its request left', async () => {
  await withApp({}, async (t, team) => {
    const key = team.owner.apiKey;
    const img = await source(64, 64);
    const before = await balance(t, key);
    const r = await edit(t, key, 'remove-background', { image_file: b64(img) });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const res = await as(t.app, key).get('/v3/async/task-result', { task_id: r.body.task_id });
    assert.equal(res.body.task.status, 'TASK_STATUS_SUCCEED');
    assert.equal(res.body.task.task_type, 'REMOVE_BACKGROUND');
    assert.ok((await fetchLink(t, res.body.images[0].image_url)).bytes.equals(Buffer.from(r.body.image_file, 'base64')));
    const after = await balance(t, key);
    assert.equal(BigInt(before.availableBalance) - BigInt(after.availableBalance), 30n);
    assert.equal(after.pendingCharges, '0');
    // its safety job, once due, leaves an ended task alone
    t.clock.advance(EDIT_WATCH_MS + 1000);
    await t.services.jobs.runDue();
    assert.equal((await as(t.app, key).get('/v3/async/task-result', { task_id: r.body.task_id })).body.task.status, 'TASK_STATUS_SUCCEED');

    // a task whose request died before ending it (put back as such) is failed by the safety job, unbilled
    const lost = await edit(t, key, 'remove-text', { image_file: b64(img) });
    await t.store.db.execute(sql`update media_tasks set ended_at_ms = null, status = 'TASK_STATUS_PROCESSING' where id = ${lost.body.task_id}`);
    t.clock.advance(EDIT_WATCH_MS + 1000);
    await t.services.jobs.runDue();
    const failed = (await as(t.app, key).get('/v3/async/task-result', { task_id: lost.body.task_id })).body;
    assert.equal(failed.task.status, 'TASK_STATUS_FAILED');
    assert.equal(failed.task.reason, EDIT_LOST);

    const poor = await createTeam(t.app, t.creds.adminToken);
    const refused = await edit(t, poor.owner.apiKey, 'remove-background', { image_file: b64(img) });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.reason, 'BILLING_BALANCE_NOT_ENOUGH');
    assert.deepEqual((await as(t.app, poor.owner.apiKey).get('/v3/async/tasks')).body.tasks, []);
  });
});

test('inputs that are not PNG images are 400s naming the field; video operations are refused by name, never 404', async () => {
  await withApp({}, async (t, team) => {
    const key = team.owner.apiKey;
    const png = b64(await source(64, 64));
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70]).toString('base64');
    const broken = b64((await source(64, 64)).subarray(0, 60));
    const cases: [string, Record<string, unknown>, string, RegExp][] = [
      ['/v3/remove-background', { image_file: 'aGVsbG8gd29ybGQ=' }, 'image_file', /PNG/],
      ['/v3/remove-background', { image_file: jpeg }, 'image_file', /not JPEG/],
      ['/v3/remove-background', { image_file: 'https://example.com/a.png' }, 'image_file', /not a URL/],
      ['/v3/remove-background', { image_file: '@@not base64@@' }, 'image_file', /base64/],
      ['/v3/remove-text', { image_file: broken }, 'image_file', /readable/],
      ['/v3/cleanup', { image_file: png }, 'mask_file', /required/],
      ['/v3/merge-face', { image_file: png, face_image_file: jpeg }, 'face_image_file', /JPEG/],
      ['/v3/replace-background', { image_file: png, prompt: '   ' }, 'prompt', /1-1024/],
      ['/v3/async/img2img', { request: { model_name: 'base.safetensors', prompt: 'x', width: 128, height: 128, image_base64: jpeg } }, 'request.image_base64', /JPEG/],
      ['/v3/async/inpainting', { request: { model_name: 'base.safetensors', prompt: 'x', image_base64: png, mask_image_base64: 'AAAA' } }, 'request.mask_image_base64', /PNG/],
      ['/v3/async/img2img', { request: { model_name: 'base.safetensors', prompt: 'x', width: 128, height: 128, image_base64: png, controlnet: { units: [{}] } } }, 'request.controlnet', /ControlNet/],
      ['/v3/remove-background', { image_file: png, extra: { response_image_type: 'jpeg' } }, 'extra.response_image_type', /png/],
    ];
    for (const [url, body, field, rule] of cases) {
      const r = await as(t.app, key).post(url, body);
      assert.equal(r.status, 400, `${url} ${field}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.reason, 'INVALID_REQUEST_BODY');
      assert.equal(r.body.metadata.field, field, JSON.stringify(r.body));
      assert.match(r.body.message, rule);
    }
    for (const op of ['hunyuan-video-fast', 'wan-t2v', 'txt2video', 'img2video']) {
      const r = await as(t.app, key).post(`/v3/async/${op}`, { model_name: 'x', prompt: 'a river', width: 512, height: 512, seed: 1, frames: 30 });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.reason, 'INVALID_REQUEST_BODY');
      assert.equal(r.body.metadata.operation, op);
      assert.match(r.body.message, /video generation is not served/);
    }
    assert.deepEqual((await as(t.app, key).get('/v3/async/tasks')).body.tasks, [], 'nothing refused became a task');
  });
});

test('the pixel work runs off the event loop: a large edit does not stall the server while it runs', async () => {
  await withApp({}, async (t, team) => {
    const big = b64(await paint(1536, 1536, (x, y) => [(x * 7) & 255, (y * 3) & 255, ((x ^ y) * 5) & 255]));
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const started = performance.now();
    const r = await edit(t, team.owner.apiKey, 'remove-text', { image_file: big });
    const took = performance.now() - started;
    delay.disable();
    assert.equal(r.status, 200, JSON.stringify(r.body).slice(0, 300));
    const stalled = delay.max / 1e6;
    // on the serving thread the decode and the edit would stall it for most of the request
    assert.ok(stalled < took / 3, `the event loop stalled ${stalled.toFixed(0)} ms of a ${took.toFixed(0)} ms edit`);
  });
});
