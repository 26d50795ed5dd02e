// Async media tasks through HTTP: txt2img to a PNG of the requested size (deterministic per
// seed), text to speech to a playable WAV whose length follows the text and the speed,
// OpenAI-compatible upstreams, the catalogue checks, admission (balance, key budget), billing
// per task with its own category, failed tasks unbilled, test mode, team scoping.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { spawnSync } from 'node:child_process';
import { sql } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam, topup, type Team } from '../../../../test/helpers/factories.ts';
import { fetchLink, importModel, uploadModel } from '../../../../test/helpers/media.ts';
import { encodePng, pngSize } from '../../../lib/png.ts';
import { encodeWav, wavInfo } from '../../../lib/wav.ts';
import { syntheticSpeech } from '../../../domain/media/sim.ts';

async function withApp(env: Record<string, string>, fn: (t: TestApp, team: Team) => Promise<void>): Promise<void> {
  const t = await buildTestApp({ env: { GANTRY_ESPEAK: 'off', GANTRY_WEBHOOK_ALLOW_PRIVATE: '1', ...env } });
  try {
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100_000);
    await importModel(t, { type: 'checkpoint', sd_name: 'base.safetensors' });
    await importModel(t, { type: 'lora', sd_name: 'ink.safetensors' });
    await importModel(t, { type: 'textualinversion', sd_name: 'easyneg.pt' });
    await importModel(t, { type: 'vae', sd_name: 'vae.pt' });
    await fn(t, team);
  } finally {
    await t.close();
  }
}

const img = (over: Record<string, unknown> = {}, extra?: Record<string, unknown>) => ({
  request: { model_name: 'base.safetensors', prompt: 'a lighthouse at dusk', width: 320, height: 200, image_num: 2, seed: 42, ...over },
  ...(extra ? { extra } : {}),
});

async function result(t: TestApp, key: string, id: string) {
  const r = await as(t.app, key).get('/v3/async/task-result', { task_id: id });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

async function run(t: TestApp, key: string, id: string) {
  await t.services.jobs.runDue();
  return result(t, key, id);
}

async function balance(t: TestApp, key: string) {
  return (await as(t.app, key).get('/openapi/v1/billing/balance/detail')).body;
}

async function mediaBills(t: TestApp, key: string) {
  const nowS = Math.floor(t.clock.nowMs() / 1000);
  const r = await as(t.app, key).get('/openapi/v1/billing/bill/list', { cycleType: 'Day', productCategory: 'media', startTime: nowS - 86_400, endTime: nowS + 86_400 });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.bills;
}

test('txt2img: queued, then a PNG of the requested size per image, the same for the same seed, billed per image under media', async () => {
  await withApp({ GANTRY_MEDIA_IMAGE_PRICE: '30' }, async (t, team) => {
    const key = team.members.Developer.apiKey;
    const before = await balance(t, team.owner.apiKey);
    const created = await as(t.app, key).post('/v3/async/txt2img', img({ loras: [{ model_name: 'ink', strength: 0.7 }], embeddings: [{ model_name: 'easyneg' }], sd_vae: 'vae.pt' }));
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const id = created.body.task_id;
    const queued = await result(t, key, id);
    assert.equal(queued.task.status, 'TASK_STATUS_QUEUED');
    assert.equal(queued.task.task_type, 'TXT_TO_IMG');
    assert.deepEqual([queued.images, queued.videos, queued.audios], [[], [], []]);
    // admitted and held: pending until the task ends
    assert.equal((await balance(t, team.owner.apiKey)).pendingCharges, '60');

    const done = await run(t, key, id);
    assert.equal(done.task.status, 'TASK_STATUS_SUCCEED', JSON.stringify(done));
    assert.equal(done.task.progress_percent, 100);
    assert.equal(done.task.eta, 0);
    assert.equal(done.extra.seed, '42');
    assert.equal(done.images.length, 2);
    const pngs = [];
    for (const im of done.images) {
      assert.equal(im.image_type, 'png');
      assert.equal(im.image_url_ttl, 86400);
      const got = await fetchLink(t, im.image_url);
      assert.equal(got.status, 200);
      assert.equal(got.contentType, 'image/png', 'a result image is served as the PNG it is');
      assert.deepEqual(pngSize(got.bytes), { width: 320, height: 200 });
      pngs.push(got.bytes);
    }
    assert.ok(!pngs[0]!.equals(pngs[1]!), 'image 2 is drawn from seed + 1');
    const again = await as(t.app, key).post('/v3/async/txt2img', img({ image_num: 1 }));
    const second = await run(t, key, again.body.task_id);
    assert.ok((await fetchLink(t, second.images[0].image_url)).bytes.equals(pngs[0]!), 'same seed, same image');

    const after = await balance(t, team.owner.apiKey);
    assert.equal(after.pendingCharges, '0');
    assert.equal(BigInt(before.availableBalance) - BigInt(after.availableBalance), 90n);
    const bills = await mediaBills(t, team.owner.apiKey);
    assert.equal(bills.reduce((n: bigint, b: any) => n + BigInt(b.amount), 0n), 90n);
    assert.ok(bills.every((b: any) => b.category === 'media' && b.billingMethod === 1 && b.productName === 'base.safetensors'), JSON.stringify(bills));
    // a link expires
    t.clock.advance(86_401_000);
    assert.equal((await fetchLink(t, done.images[0].image_url)).status, 403);
  });
});

test('txt2img checks: the checkpoint, LoRAs, embeddings and VAE must be available records the team sees; sizes and counts', async () => {
  await withApp({}, async (t, team) => {
    const other = await createTeam(t.app, t.creds.adminToken);
    assert.equal((await uploadModel(t, other.owner.apiKey, { type: 'lora', sd_name: 'secret.safetensors' })).status, 200);
    assert.equal((await uploadModel(t, team.owner.apiKey, { type: 'lora', sd_name: 'mine.safetensors' })).status, 200);
    const key = team.owner.apiKey;
    const cases: [Record<string, unknown>, string][] = [
      [{ model_name: 'nope.safetensors' }, 'request.model_name'],
      [{ model_name: 'ink' }, 'request.model_name'], // a LoRA is not a checkpoint
      [{ loras: [{ model_name: 'secret' }] }, 'request.loras[0].model_name'], // another team's
      [{ loras: [{ model_name: 'base.safetensors' }] }, 'request.loras[0].model_name'],
      [{ embeddings: [{ model_name: 'ink' }] }, 'request.embeddings[0].model_name'],
      [{ sd_vae: 'missing.pt' }, 'request.sd_vae'],
      [{ width: 127 }, 'width'],
      [{ height: 2049 }, 'height'],
      [{ image_num: 9 }, 'image_num'],
      [{ image_num: 0 }, 'image_num'],
      [{ steps: 101 }, 'steps'],
      [{ prompt: '' }, 'prompt'],
    ];
    for (const [over, field] of cases) {
      const r = await as(t.app, key).post('/v3/async/txt2img', img(over));
      assert.equal(r.status, 400, `${JSON.stringify(over)}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.reason, 'INVALID_REQUEST_BODY');
      assert.match(String(r.body.metadata.field), new RegExp(field.replace(/[[\].]/g, '\\$&')), JSON.stringify(r.body));
    }
    const png = await as(t.app, key).post('/v3/async/txt2img', img({}, { response_image_type: 'jpeg' }));
    assert.equal(png.body.metadata.field, 'extra.response_image_type');
    // the team's own LoRA is usable
    assert.equal((await as(t.app, key).post('/v3/async/txt2img', img({ loras: [{ model_name: 'mine' }] }))).status, 200);
    // nothing was held for refused requests: only the accepted task's 2 images
    assert.equal((await balance(t, key)).pendingCharges, '60');
  });
});

test('admission: the balance and the key budget refuse before anything is queued', async () => {
  await withApp({ GANTRY_MEDIA_IMAGE_PRICE: '6000' }, async (t, team) => {
    const poor = await createTeam(t.app, t.creds.adminToken);
    const r = await as(t.app, poor.owner.apiKey).post('/v3/async/txt2img', img());
    assert.equal(r.status, 400);
    assert.equal(r.body.reason, 'BILLING_BALANCE_NOT_ENOUGH');
    const dev = team.members.Developer;
    assert.equal((await as(t.app, team.owner.apiKey).put('/openapi/v1/user/team/key-budget', { member_id: dev.memberId, key_id: dev.keyId, budget_type: 'One-time', budget_limit: 10000 })).status, 200);
    const over = await as(t.app, dev.apiKey).post('/v3/async/txt2img', img()); // 2 × 6000 > 10000
    assert.equal(over.status, 403);
    assert.equal(over.body.reason, 'BUDGET_EXCEEDED');
    assert.equal((await as(t.app, dev.apiKey).post('/v3/async/txt2img', img({ image_num: 1 }))).status, 200);
    // the first task's hold counts: a second one does not fit the budget
    assert.equal((await as(t.app, dev.apiKey).post('/v3/async/txt2img', img({ image_num: 1 }))).body.reason, 'BUDGET_EXCEEDED');
  });
});

test('task results are the team\'s: another team\'s id and an unknown id are TASK_NOT_FOUND; Billing may not create tasks', async () => {
  await withApp({}, async (t, team) => {
    const other = await createTeam(t.app, t.creds.adminToken);
    const { body } = await as(t.app, team.owner.apiKey).post('/v3/async/txt2img', img());
    for (const [key, id] of [[other.owner.apiKey, body.task_id], [team.owner.apiKey, 'task_nope']]) {
      const r = await as(t.app, key!).get('/v3/async/task-result', { task_id: id! });
      assert.equal(r.status, 404);
      assert.equal(r.body.reason, 'TASK_NOT_FOUND');
    }
    assert.equal((await as(t.app, team.members.Basic.apiKey).get('/v3/async/task-result', { task_id: body.task_id })).status, 200, 'every key of the team');
    const billing = await as(t.app, team.members.Billing.apiKey).post('/v3/async/txt2img', img());
    assert.equal(billing.status, 403);
  });
});

test('txt2speech: a playable WAV per text, its length from the text and the speed, billed per character', async () => {
  await withApp({ GANTRY_MEDIA_TTS_PRICE_PER_M_CHARS: '1000000' }, async (t, team) => {
    const key = team.owner.apiKey;
    const text = 'Hello from Gantry, this is a test of the speech simulator.';
    const mk = (speed: number) => as(t.app, key).post('/v3/async/txt2speech', {
      request: { voice_id: 'Emily', language: 'en-US', texts: [text, 'Short.'], volume: 1, speed }, extra: { response_audio_type: 'wav' },
    });
    const normal = await mk(1);
    assert.equal(normal.status, 200, JSON.stringify(normal.body));
    const fast = await mk(2);
    const a = await run(t, key, normal.body.task_id);
    const b = await result(t, key, fast.body.task_id);
    assert.equal(a.task.status, 'TASK_STATUS_SUCCEED');
    assert.equal(a.task.task_type, 'TXT_TO_SPEECH');
    assert.equal(a.audios.length, 2);
    const infos = [];
    for (const au of [...a.audios, b.audios[0]]) {
      assert.equal(au.audio_type, 'wav');
      const got = await fetchLink(t, au.audio_url);
      assert.equal(got.status, 200);
      assert.equal(got.contentType, 'audio/wav');
      const info = wavInfo(got.bytes)!;
      assert.ok(info, 'a RIFF/WAVE file');
      assert.deepEqual([info.format, info.channels, info.bitsPerSample], [1, 1, 16]);
      assert.equal(info.dataBytes + 44, got.bytes.length);
      infos.push(info);
    }
    const [long, short, longFast] = infos;
    assert.ok(long!.durationS > 3 && long!.durationS < 6, `${long!.durationS} s for ${text.length} characters`);
    assert.ok(short!.durationS < 1);
    assert.ok(Math.abs(longFast!.durationS - long!.durationS / 2) < 0.25, 'twice the speed, half the time');
    // 2 tasks × (58 + 6) characters × 1,000,000 units per million characters = 64 units each
    const chars = [...text].length + 6;
    const bills = await mediaBills(t, key);
    assert.equal(bills.reduce((n: bigint, x: any) => n + BigInt(x.amount), 0n), BigInt(2 * chars));
    assert.ok(bills.every((x: any) => x.productName === 'Emily'));
    const bad = await as(t.app, key).post('/v3/async/txt2speech', { request: { voice_id: 'Emily', texts: ['hi'], speed: 3 } });
    assert.equal(bad.status, 400);
    const mp3 = await as(t.app, key).post('/v3/async/txt2speech', { request: { voice_id: 'Emily', texts: ['hi'] }, extra: { response_audio_type: 'mp3' } });
    assert.equal(mp3.body.metadata.field, 'extra.response_audio_type');
  });
});

/** An OpenAI-compatible media server: images, speech, or a refusal (`fail`) or an outage (`down`). */
async function fakeUpstream(): Promise<{ server: Server; url: string; mode: { fail: boolean; down: number }; seen: any[] }> {
  const mode = { fail: false, down: 0 };
  const seen: any[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString());
    seen.push({ path: req.url, body, auth: req.headers.authorization });
    if (mode.down > 0) {
      mode.down--;
      res.writeHead(503).end('busy');
      return;
    }
    if (mode.fail) {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"content policy"}}');
      return;
    }
    if (req.url === '/v1/images/generations') {
      const [w, h] = String(body.size).split('x').map(Number);
      const data = [];
      for (let i = 0; i < body.n; i++) data.push({ b64_json: (await encodePng(w!, h!, new Uint8Array(w! * h! * 3).fill(200))).toString('base64') });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ created: 1, data }));
      return;
    }
    res.writeHead(200, { 'content-type': 'audio/wav' }).end(encodeWav(new Float32Array(8000), 8000));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  return { server, url: `http://127.0.0.1:${port}/v1`, mode, seen };
}

test('upstreams: txt2img from /v1/images/generations, a voice from /v1/audio/speech; a refusal fails the task unbilled, an outage is retried', async () => {
  const up = await fakeUpstream();
  try {
    await withApp({
      GANTRY_MEDIA_IMAGE_UPSTREAM: up.url, GANTRY_MEDIA_IMAGE_UPSTREAM_KEY: 'img-secret', UPSTREAM_TTS_KEY: 'tts-secret',
      GANTRY_MEDIA_TTS_VOICES: JSON.stringify({ alloy: { url: up.url, model: 'tts-1', voice: 'alloy', apiKeyEnv: 'UPSTREAM_TTS_KEY' } }),
    }, async (t, team) => {
      const key = team.owner.apiKey;
      const ok = await as(t.app, key).post('/v3/async/txt2img', img({ image_num: 1, width: 256, height: 128 }));
      const r = await run(t, key, ok.body.task_id);
      assert.equal(r.task.status, 'TASK_STATUS_SUCCEED');
      assert.deepEqual(pngSize((await fetchLink(t, r.images[0].image_url)).bytes), { width: 256, height: 128 });
      assert.deepEqual(up.seen[0], { path: '/v1/images/generations', auth: 'Bearer img-secret', body: { model: 'base.safetensors', prompt: 'a lighthouse at dusk', n: 1, size: '256x128', response_format: 'b64_json', seed: 42 } });

      const sp = await as(t.app, key).post('/v3/async/txt2speech', { request: { voice_id: 'alloy', texts: ['hello'] } });
      const s = await run(t, key, sp.body.task_id);
      assert.equal(s.task.status, 'TASK_STATUS_SUCCEED');
      assert.equal(wavInfo((await fetchLink(t, s.audios[0].audio_url)).bytes)!.sampleRate, 8000);
      assert.deepEqual(up.seen.at(-1), { path: '/v1/audio/speech', auth: 'Bearer tts-secret', body: { model: 'tts-1', input: 'hello', voice: 'alloy', speed: 1, response_format: 'wav' } });

      // an outage: the job retries after its backoff, and the task then succeeds
      up.mode.down = 1;
      const retried = await as(t.app, key).post('/v3/async/txt2img', img({ image_num: 1 }));
      assert.equal((await run(t, key, retried.body.task_id)).task.status, 'TASK_STATUS_PROCESSING');
      t.clock.advance(2000);
      assert.equal((await run(t, key, retried.body.task_id)).task.status, 'TASK_STATUS_SUCCEED');

      // a refusal: failed at once, with the reason, and not charged (the hold is released)
      up.mode.fail = true;
      const refused = await as(t.app, key).post('/v3/async/txt2img', img({ image_num: 1 }));
      assert.equal((await balance(t, key)).pendingCharges, '30');
      const f = await run(t, key, refused.body.task_id);
      assert.equal(f.task.status, 'TASK_STATUS_FAILED');
      assert.match(f.task.reason, /refused the task \(400\)/);
      assert.deepEqual(f.images, []);
      assert.equal((await balance(t, key)).pendingCharges, '0');
      // the two images that succeeded are billed (30 units each), the refused one is not
      const images = (await mediaBills(t, key)).filter((b: any) => b.productName === 'base.safetensors');
      assert.equal(images.reduce((n: bigint, b: any) => n + BigInt(b.amount), 0n), 60n);
    });
  } finally {
    up.server.close();
  }
});

test('webhook test mode: the task ends at once with the status asked for, and nothing is charged', async () => {
  await withApp({}, async (t, team) => {
    const key = team.owner.apiKey;
    for (const status of ['TASK_STATUS_SUCCEED', 'TASK_STATUS_FAILED']) {
      const r = await as(t.app, key).post('/v3/async/txt2img', img({}, { webhook: { url: 'http://127.0.0.1:9/hook', test_mode: { enabled: true, return_task_status: status } } }));
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const res = await result(t, key, r.body.task_id);
      assert.equal(res.task.status, status);
    }
    assert.equal((await balance(t, key)).pendingCharges, '0');
    assert.deepEqual(await mediaBills(t, key), []);
    const bad = await as(t.app, key).post('/v3/async/txt2img', img({}, { webhook: { url: 'http://127.0.0.1:9/hook', test_mode: { enabled: true } } }));
    assert.equal(bad.body.metadata.field, 'extra.webhook.test_mode.return_task_status');
    const notUrl = await as(t.app, key).post('/v3/async/txt2img', img({}, { webhook: { url: 'ftp://x' } }));
    assert.equal(notUrl.body.metadata.field, 'extra.webhook.url');
  });
});

test('a task whose job the runner failed (every start\'s process died) is failed by the sweep: unbilled, its hold released', async () => {
  await withApp({}, async (t, team) => {
    const key = team.owner.apiKey;
    const r = await as(t.app, key).post('/v3/async/txt2img', img());
    assert.equal((await balance(t, key)).pendingCharges, '60');
    // what the runner leaves when the last start's lease ran out: the job failed, the task open
    await t.store.db.execute(sql`update jobs set state = 'failed', last_error = 'lease of runner x expired' where name = 'media.task'`);
    assert.equal((await result(t, key, r.body.task_id)).task.status, 'TASK_STATUS_QUEUED');
    const ok = await as(t.app, key).post('/v3/async/txt2img', img({ image_num: 1 })); // a task whose job is alive is left alone
    await t.services.jobs.runNow('media.tasks.sweep');
    const failed = await result(t, key, r.body.task_id);
    assert.equal(failed.task.status, 'TASK_STATUS_FAILED');
    assert.match(failed.task.reason, /its job failed \(lease of runner x expired\)/);
    assert.equal((await result(t, key, ok.body.task_id)).task.status, 'TASK_STATUS_QUEUED');
    assert.equal((await balance(t, key)).pendingCharges, '30');
    assert.deepEqual(await mediaBills(t, key), []);
  });
});

const espeakInstalled = (() => {
  try {
    return spawnSync('espeak-ng', ['--version']).status === 0;
  } catch {
    return false;
  }
})();

// CI installs espeak-ng and sets GANTRY_TEST_REQUIRE_ESPEAK=1: there the test runs or fails, never skips.
const espeakSkip = !espeakInstalled && !process.env.GANTRY_TEST_REQUIRE_ESPEAK && 'espeak-ng is not installed';

test('txt2speech speaks through espeak-ng when it is installed', { skip: espeakSkip }, async () => {
  await withApp({ GANTRY_ESPEAK: 'espeak-ng' }, async (t, team) => {
    const key = team.owner.apiKey;
    const text = 'Hello from Gantry, spoken by espeak.';
    const wavs: Buffer[] = [];
    for (const [language, speed] of [['en-US', 1], ['en-US', 2], ['de-DE', 1]] as const) {
      const r = await as(t.app, key).post('/v3/async/txt2speech', { request: { voice_id: 'Emily', language, texts: [text], speed } });
      const res = await run(t, key, r.body.task_id);
      assert.equal(res.task.status, 'TASK_STATUS_SUCCEED');
      wavs.push((await fetchLink(t, res.audios[0].audio_url)).bytes);
    }
    const [normal, fast, german] = wavs.map((w) => ({ w, info: wavInfo(w)! }));
    assert.equal(normal!.info.sampleRate, 22050);
    assert.equal(normal!.w.readUInt32LE(4), normal!.w.length - 8, 'the RIFF length is the file\'s');
    assert.ok(!normal!.w.equals(syntheticSpeech(text, { speed: 1, volume: 1 })), 'not the synthetic voice');
    assert.ok(fast!.info.durationS < normal!.info.durationS * 0.75, 'faster at speed 2');
    assert.ok(german!.info.durationS > 0.5, 'de-DE falls back to espeak\'s de voice');
  });
});

test('ended tasks are kept GANTRY_MEDIA_TASK_TTL_DAYS, then removed with their outputs', async () => {
  await withApp({ GANTRY_MEDIA_TASK_TTL_DAYS: '2', GANTRY_MEDIA_LINK_TTL_S: '604800' }, async (t, team) => {
    const key = team.owner.apiKey;
    const r = await as(t.app, key).post('/v3/async/txt2img', img({ image_num: 1 }));
    const done = await run(t, key, r.body.task_id);
    const open = await as(t.app, key).post('/v3/async/txt2img', img({ image_num: 1 })); // not ended: never removed by age
    t.clock.advance(2 * 86_400_000 - 60_000);
    await t.services.jobs.runNow('media.tasks.sweep');
    assert.equal((await result(t, key, r.body.task_id)).task.status, 'TASK_STATUS_SUCCEED');
    assert.equal((await fetchLink(t, done.images[0].image_url)).status, 200);
    t.clock.advance(120_000);
    await t.services.jobs.runNow('media.tasks.sweep');
    const gone = await as(t.app, key).get('/v3/async/task-result', { task_id: r.body.task_id });
    assert.equal(gone.status, 404);
    assert.equal(gone.body.reason, 'TASK_NOT_FOUND');
    assert.equal((await fetchLink(t, done.images[0].image_url)).status, 404, 'the image is gone with it');
    assert.equal((await result(t, key, open.body.task_id)).task.status, 'TASK_STATUS_QUEUED');
  });
});
