// A stand-in for the AUTOMATIC1111 / Forge web UI API, as its contract is published
// (/docs of a web UI started with --api): POST /sdapi/v1/options sets settings (answers
// null), /sdapi/v1/txt2img and /sdapi/v1/img2img answer `{images: [base64 PNG…],
// parameters, info: "<JSON string>"}`, /sdapi/v1/extra-single-image `{image, html_info}`.
// It checks what it is sent the way the web UI would (422 for a missing or mistyped field,
// 404 for an unknown sampler or upscaler, 401 without the --api-auth credentials), draws
// PNGs of the asked size, and records every request with the checkpoint that was selected
// when it ran, for the tests to check what Gantry sent.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { encodePng, pngSize } from '../../src/lib/png.ts';

export interface A1111Call {
  path: string;
  body: Record<string, any>;
  authorization: string | undefined;
  /** sd_model_checkpoint when the call ran */
  checkpoint: unknown;
}

export interface A1111StandIn {
  url: string;
  calls: A1111Call[];
  options: Record<string, unknown>;
  /** make the next options calls slow (ms), to widen any race between select and generate */
  optionsDelayMs: number;
  close(): Promise<void>;
}

const SAMPLERS = new Set(['Euler a', 'Euler', 'DPM++ 2M Karras', 'DDIM']);
const UPSCALERS = new Set(['R-ESRGAN 4x+ Anime6B', 'R-ESRGAN 4x+', '4x-UltraSharp', 'my-upscaler']);

export async function startA1111(auth?: string): Promise<A1111StandIn> {
  const s: A1111StandIn = { url: '', calls: [], options: { sd_model_checkpoint: 'none.safetensors' }, optionsDelayMs: 0, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    void handle(s, auth, req, res).catch((err) => reply(res, 500, { error: 'Exception', detail: String(err) }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  s.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  s.close = async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  };
  return s;
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function handle(s: A1111StandIn, auth: string | undefined, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  if (auth && req.headers.authorization !== `Basic ${Buffer.from(auth).toString('base64')}`) return reply(res, 401, { detail: 'Incorrect username or password' });
  const body = JSON.parse(Buffer.concat(chunks).toString() || 'null');
  const path = req.url ?? '';
  s.calls.push({ path, body, authorization: req.headers.authorization, checkpoint: s.options.sd_model_checkpoint });
  if (req.method !== 'POST') return reply(res, 405, { detail: 'Method Not Allowed' });
  if (path === '/sdapi/v1/options') {
    if (s.optionsDelayMs) await new Promise((r) => setTimeout(r, s.optionsDelayMs)); // the scenario: a slow model load
    Object.assign(s.options, body);
    return reply(res, 200, null);
  }
  if (path === '/sdapi/v1/txt2img' || path === '/sdapi/v1/img2img') return generate(s, path, body, res);
  if (path === '/sdapi/v1/extra-single-image') {
    const src = Buffer.from(String(body?.image ?? ''), 'base64');
    const size = pngSize(src);
    if (!size || typeof body.upscaling_resize !== 'number') return reply(res, 422, { detail: [{ loc: ['body', 'image'], msg: 'invalid' }] });
    if (!UPSCALERS.has(body.upscaler_1)) return reply(res, 404, { detail: `could not find upscaler named ${body.upscaler_1}` });
    const image = await solid(Math.round(size.width * body.upscaling_resize), Math.round(size.height * body.upscaling_resize), 1);
    return reply(res, 200, { image: image.toString('base64'), html_info: '<p></p>' });
  }
  reply(res, 404, { detail: 'Not Found' });
}

async function generate(s: A1111StandIn, path: string, body: Record<string, any>, res: ServerResponse): Promise<void> {
  const ints = ['width', 'height', 'steps', 'seed', 'batch_size', 'n_iter'];
  const bad = ints.find((k) => !Number.isInteger(body[k])) ?? (typeof body.prompt !== 'string' ? 'prompt' : undefined);
  if (bad) return reply(res, 422, { detail: [{ loc: ['body', bad], msg: 'value is not a valid integer' }] });
  if (!SAMPLERS.has(body.sampler_name)) return reply(res, 404, { detail: 'Sampler not found' });
  if (path.endsWith('img2img')) {
    const init = Buffer.from(String(body.init_images?.[0] ?? ''), 'base64');
    if (!pngSize(init)) return reply(res, 422, { detail: [{ loc: ['body', 'init_images'], msg: 'not an image' }] });
    if (body.mask !== undefined && !pngSize(Buffer.from(String(body.mask), 'base64'))) return reply(res, 422, { detail: [{ loc: ['body', 'mask'], msg: 'not an image' }] });
  }
  const images = [];
  for (let i = 0; i < body.batch_size * body.n_iter; i++) images.push((await solid(body.width, body.height, body.seed + i)).toString('base64'));
  const info = { prompt: body.prompt, all_prompts: [body.prompt], seed: body.seed, all_seeds: images.map((_, i) => body.seed + i), sd_model_name: s.options.sd_model_checkpoint };
  reply(res, 200, { images, parameters: body, info: JSON.stringify(info) });
}

/** A PNG of one colour that depends on `seed`. */
function solid(width: number, height: number, seed: number): Promise<Buffer> {
  const rgb = new Uint8Array(width * height * 3);
  for (let p = 0; p < width * height; p++) rgb.set([(seed * 37) & 255, (seed * 91) & 255, (seed * 53) & 255], p * 3);
  return encodePng(width, height, rgb);
}
