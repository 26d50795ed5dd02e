// Real upstreams of media tasks: any OpenAI-compatible server. txt2img asks
// `{url}/images/generations` for PNGs (b64_json); text to speech asks `{url}/audio/speech`
// for a WAV. (The AUTOMATIC1111 kind of image upstream is a1111.ts, on the same `post`.) A refusal the request caused (4xx) fails the task at once; the server away or
// failing (connection, timeout, 5xx, 429) is retried by the task's job.
import { upstreamFailed } from './errors.ts';
import { pngSize } from '../../lib/png.ts';
import { wavInfo } from '../../lib/wav.ts';

/** The task cannot succeed as asked: fail it now, do not retry. */
export class TaskRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TaskRefused';
  }
}

const TIMEOUT_MS = 300_000;

/** The Authorization header for a key: a bearer token. */
export const bearer = (apiKey: string | undefined) => (apiKey ? `Bearer ${apiKey}` : undefined);

export async function post(url: string, authorization: string | undefined, body: unknown, signal: AbortSignal | undefined): Promise<Response> {
  const timeout = AbortSignal.timeout(TIMEOUT_MS);
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
      body: JSON.stringify(body),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (err) {
    throw upstreamFailed(`the upstream ${new URL(url).host} could not be reached: ${(err as Error).message}`);
  }
  if (res.ok) return res;
  const text = (await res.text().catch(() => '')).slice(0, 300);
  if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) {
    throw new TaskRefused(`the upstream refused the task (${res.status}): ${text}`);
  }
  throw upstreamFailed(`the upstream answered ${res.status}: ${text}`);
}

export interface ImageUpstream {
  url: string;
  apiKey: string | undefined;
  kind: 'openai' | 'a1111';
}

/** `n` PNGs of `width`×`height` from an OpenAI-compatible images server. */
export async function upstreamImages(u: ImageUpstream, r: { model: string; prompt: string; n: number; width: number; height: number; seed: number }, signal?: AbortSignal): Promise<Buffer[]> {
  const res = await post(`${u.url}/images/generations`, bearer(u.apiKey), {
    model: r.model, prompt: r.prompt, n: r.n, size: `${r.width}x${r.height}`, response_format: 'b64_json', seed: r.seed,
  }, signal);
  const body = await res.json().catch(() => undefined) as { data?: { b64_json?: unknown }[] } | undefined;
  const images = (body?.data ?? []).map((d) => typeof d.b64_json === 'string' ? Buffer.from(d.b64_json, 'base64') : undefined);
  if (images.length !== r.n || images.some((b) => !b || !pngSize(b))) {
    throw upstreamFailed(`the upstream did not answer ${r.n} PNG image(s) as b64_json`);
  }
  return images as Buffer[];
}

export interface SpeechUpstream {
  url: string;
  model: string;
  voice: string;
  apiKey: string | undefined;
}

/** A WAV of `input` from an OpenAI-compatible speech server. */
export async function upstreamSpeech(u: SpeechUpstream, r: { input: string; speed: number }, signal?: AbortSignal): Promise<Buffer> {
  const res = await post(`${u.url}/audio/speech`, bearer(u.apiKey), { model: u.model, input: r.input, voice: u.voice, speed: r.speed, response_format: 'wav' }, signal);
  const wav = Buffer.from(await res.arrayBuffer());
  if (!wavInfo(wav)) throw upstreamFailed('the upstream did not answer a WAV file');
  return wav;
}
