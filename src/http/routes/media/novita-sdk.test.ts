// The vendor's own client, `novita-sdk`, against a listening Gantry: every method the SDK
// object has is driven (the list is read from the object, so a method a new version adds
// fails this test until it is covered) and either succeeds with a checked result or gets the
// refusal docs/compat-decisions.md documents: the video operations (400, the operation
// named), and `upload`, which the SDK sends to the vendor's asset host whatever the base URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { NovitaSDK, type NovitaError } from 'novita-sdk';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { createTeam, topup } from '../../../../test/helpers/factories.ts';
import { importModel } from '../../../../test/helpers/media.ts';
import { b64, decode, inDisc, paint, px } from '../../../../test/helpers/images.ts';

/** The SDK's methods: its own function properties (the operations) and its prototype's. */
function methodsOf(sdk: object): string[] {
  const own = Object.entries(sdk).filter(([, v]) => typeof v === 'function').map(([k]) => k);
  const proto = Object.getOwnPropertyNames(Object.getPrototypeOf(sdk)).filter((k) => k !== 'constructor');
  return [...new Set([...own, ...proto])].sort();
}

async function refusal(p: Promise<unknown>): Promise<NovitaError> {
  try {
    await p;
  } catch (err) {
    return err as NovitaError;
  }
  throw new Error('expected a refusal');
}

/** Poll the task through the SDK's progress until it ends, running the queued jobs between polls. */
async function settle(t: TestApp, sdk: NovitaSDK, taskId: string) {
  for (let i = 0; i < 5; i++) {
    const r = await sdk.progress({ task_id: taskId });
    if (r.task.status === 'TASK_STATUS_SUCCEED' || r.task.status === 'TASK_STATUS_FAILED') return r;
    await t.services.jobs.runDue();
  }
  throw new Error(`task ${taskId} did not end`);
}

test('novita-sdk drives every method it has against Gantry', async () => {
  const t = await buildTestApp({ env: { GANTRY_MEDIA_IMAGE_PRICE: '30' } });
  try {
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100_000);
    await importModel(t, { type: 'checkpoint', sd_name: 'base.safetensors' });
    const sdk = new NovitaSDK('not-a-key');
    const src = await paint(96, 96, (x, y) => (inDisc(x, y, 48, 48, 24) ? [230, 40, 30] : [30, 60, 200]));
    const mask = await paint(96, 96, (x) => (x < 48 ? [255, 255, 255] : [0, 0, 0]));
    const generation = { model_name: 'base.safetensors', prompt: 'a red ball', negative_prompt: '', image_num: 1, steps: 20, seed: 4, guidance_scale: 7, sampler_name: 'Euler a' };
    const taskImage = async (taskId: string, type: string, size: [number, number]) => {
      const r = await settle(t, sdk, taskId);
      assert.equal(r.task.status, 'TASK_STATUS_SUCCEED', JSON.stringify(r));
      assert.equal(r.task.task_type, type);
      const link = new URL(r.images![0]!.image_url); // signed for the configured public URL; fetched from this server
      const png = Buffer.from(await (await fetch(`${address}${link.pathname}${link.search}`)).arrayBuffer());
      assert.deepEqual([decode(png).width, decode(png).height], size);
    };
    const edited = (r: { image_file: string; image_type: string }) => {
      assert.equal(r.image_type, 'png');
      return decode(Buffer.from(r.image_file, 'base64'));
    };
    const video = async (p: Promise<unknown>, op: string) => {
      const e = await refusal(p);
      assert.deepEqual([e.code, e.reason, e.metadata?.operation], [400, 'INVALID_REQUEST_BODY', op], JSON.stringify(e.metadata));
      assert.match(e.msg, /video generation is not served/);
    };

    const covered: Record<string, () => Promise<void>> = {
      setBaseUrl: async () => sdk.setBaseUrl(address),
      setNovitaKey: async () => {
        const e = await refusal(sdk.getModels());
        assert.equal(e.code, 401, 'a key Gantry does not know');
        sdk.setNovitaKey(team.owner.apiKey);
      },
      httpFetch: async () => {
        const r = await sdk.httpFetch({ url: '/v3/async/tasks', query: { limit: 5 } });
        assert.ok(Array.isArray(r.tasks));
      },
      getModels: async () => {
        const r = await sdk.getModels({ filter: { types: 'checkpoint' }, pagination: { limit: 50 } } as never);
        assert.ok(r.models.some((m) => m.sd_name_in_api === 'base.safetensors'), JSON.stringify(r));
      },
      txt2Img: async () => taskImage((await sdk.txt2Img({ request: { ...generation, width: 128, height: 128 } })).task_id, 'TXT_TO_IMG', [128, 128]),
      txt2img: async () => taskImage((await sdk.txt2img({ request: { ...generation, width: 256, height: 128 } })).task_id, 'TXT_TO_IMG', [256, 128]),
      img2Img: async () => taskImage((await sdk.img2Img({ request: { ...generation, image_base64: b64(src), width: 192, height: 192 } })).task_id, 'IMG_TO_IMG', [192, 192]),
      img2img: async () => taskImage((await sdk.img2img({ request: { ...generation, image_base64: b64(src), width: 128, height: 160, strength: 0.3 } })).task_id, 'IMG_TO_IMG', [128, 160]),
      inpainting: async () => taskImage((await sdk.inpainting({ request: { ...generation, image_base64: b64(src), mask_image_base64: b64(mask) } })).task_id, 'INPAINTING', [96, 96]),
      progress: async () => {
        const e = await refusal(sdk.progress({ task_id: 'task_00000000000000000000000000' }));
        assert.deepEqual([e.code, e.reason, e.metadata?.task_id], [404, 'TASK_NOT_FOUND', 'task_00000000000000000000000000']);
      },
      // the SDK has no upscale method; its request builder reaches the vendor's v3 path
      _apiRequest: async () => {
        const upscale = (sdk as unknown as { _apiRequest(url: string): (p: unknown) => Promise<{ task_id: string }> })._apiRequest('/v3/async/upscale');
        await taskImage((await upscale({ request: { model_name: 'RealESRNet_x4plus', image_base64: b64(src), scale_factor: 2 } })).task_id, 'UPSCALE', [192, 192]);
      },
      cleanup: async () => {
        const ball = await paint(96, 96, (x, y) => (inDisc(x, y, 48, 48, 28) ? [255, 255, 255] : [0, 0, 0]));
        const out = edited(await sdk.cleanup({ image_file: b64(src), mask_file: b64(ball) }));
        assert.deepEqual(px(out, 48, 48).slice(0, 3), [30, 60, 200], 'the ball is gone');
        assert.deepEqual(px(out, 5, 5), [30, 60, 200, 255], 'the rest is kept');
      },
      removeBackground: async () => {
        const out = edited(await sdk.removeBackground({ image_file: b64(src) }));
        assert.deepEqual([px(out, 2, 2)[3], px(out, 48, 48)[3]], [0, 255]);
      },
      replaceBackground: async () => {
        const out = edited(await sdk.replaceBackground({ image_file: b64(src), prompt: 'a field of wheat' }));
        assert.deepEqual(px(out, 48, 48), [230, 40, 30, 255]);
        assert.notDeepEqual(px(out, 2, 2), [30, 60, 200, 255]);
      },
      mergeFace: async () => {
        const face = await paint(64, 64, (x, y) => (inDisc(x, y, 32, 32, 16) ? [250, 220, 0] : [0, 160, 0]));
        const out = edited(await sdk.mergeFace({ face_image_file: b64(face), image_file: b64(src) }));
        assert.deepEqual(px(out, 48, 48).slice(0, 3), [250, 220, 0]);
      },
      removeText: async () => {
        const text = await paint(96, 64, (x, y) => (y >= 30 && y < 32 && x > 10 && x < 80 ? [0, 0, 0] : [240, 240, 240]));
        const out = edited(await sdk.removeText({ image_file: b64(text) }));
        assert.deepEqual(px(out, 40, 30).slice(0, 3), [240, 240, 240]);
      },
      hunyuanVideoFast: () => video(sdk.hunyuanVideoFast({ model_name: 'hunyuan-video-fast', width: 640, height: 480, seed: 1, steps: 10, prompt: 'waves', frames: 85 }), 'hunyuan-video-fast'),
      wanT2v: () => video(sdk.wanT2v({ model_name: 'wan-t2v', width: 832, height: 480, seed: 1, prompt: 'waves', frames: 81 }), 'wan-t2v'),
      txt2Video: () => video(sdk.txt2Video({ model_name: 'darkSushiMixMix_225D_64380.safetensors', width: 512, height: 512, seed: 1, steps: 20, prompts: [{ prompt: 'waves', frames: 32 }], guidance_scale: 7 }), 'txt2video'),
      img2Video: () => video(sdk.img2Video({ model_name: 'SVD-XT' as never, image_file: b64(src), frames_num: 25, frames_per_second: 6, seed: 1, image_file_resize_mode: 'ORIGINAL_RESOLUTION' as never, steps: 20 }), 'img2video'),
      // upload PUTs to the vendor's asset host, fixed in the SDK (not the base URL): caught before it leaves
      upload: async () => {
        const sdkAxios = createRequire(createRequire(import.meta.url).resolve('novita-sdk'))('axios');
        const seen: string[] = [];
        const id = sdkAxios.interceptors.request.use((config: { url: string }) => {
          seen.push(config.url);
          throw new Error('not sent: the test stops it here');
        });
        try {
          const e = await refusal(sdk.upload({ type: 'image', data: new Blob([new Uint8Array(src)]) }));
          assert.match(e.msg, /not sent/);
        } finally {
          sdkAxios.interceptors.request.eject(id);
        }
        assert.deepEqual(seen, ['https://assets.novitai.com/image'], 'not an address under the base URL: Gantry cannot serve it');
      },
    };
    assert.deepEqual(methodsOf(sdk), Object.keys(covered).sort(), 'every method of the SDK is covered here');
    for (const [name, drive] of Object.entries(covered)) {
      await drive().catch((err) => {
        throw new Error(`${name}: ${err instanceof Error ? err.message : JSON.stringify(err)}`, { cause: err });
      });
    }
  } finally {
    await t.close();
  }
});
