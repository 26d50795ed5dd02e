// Does a big request stall everyone else? A steady stream of GET /healthz (one every
// `intervalMs`, each timed from its send to its last byte) runs first alone (the baseline),
// then while big model requests are sent one after another. Shared by the bench
// (bench/big-inputs/run.ts, absolute numbers) and test/big-inputs.process.test.ts (the check).
import { Pool } from 'undici';

export interface Latency {
  n: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface BigAnswer {
  status: number;
  ms: number;
  /** the answer's first 300 characters, for a failing assertion's message */
  head: string;
}

export interface ProbeResult {
  baseline: Latency;
  loaded: Latency;
  answers: BigAnswer[];
}

const WORDS = ('light river stone garden window market signal system number letter music paper orange silver quiet ' +
  'rapid cloud compute answer question simple small large the a of to and in is that for it as with on').split(' ');

/** About `bytes` of UTF-8 text of ordinary words (≈ 5.5 bytes a word), different for each seed. */
export function wordsText(bytes: number, seed = 0): string {
  const parts: string[] = [];
  let n = 0;
  let x = (seed * 7919 + 1) >>> 0;
  for (let i = 0; n < bytes; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const w = WORDS[(x >>> 8) % WORDS.length]! + (i % 13 === 12 ? '.' : '');
    parts.push(w);
    n += w.length + 1;
  }
  return parts.join(' ').slice(0, bytes);
}

/** A chat request body of exactly `bytes` bytes (ASCII) whose one message fills it. */
export function bigChatBody(model: string, bytes: number, seed = 0, maxTokens = 16): Buffer {
  const frame = JSON.stringify({ model, max_tokens: maxTokens, messages: [{ role: 'user', content: '' }] });
  return Buffer.from(JSON.stringify({ model, max_tokens: maxTokens, messages: [{ role: 'user', content: wordsText(bytes - frame.length, seed) }] }));
}

function stats(ms: number[]): Latency {
  const s = [...ms].sort((a, b) => a - b);
  const pct = (p: number) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)] ?? NaN;
  return { n: s.length, p50Ms: pct(0.5), p99Ms: pct(0.99), maxMs: s[s.length - 1] ?? NaN };
}

export async function probeHealthz(opts: {
  url: string;
  apiKey: string;
  /** sent one after another, each after the previous answer */
  bodies: Buffer[];
  path?: string;
  baselineMs?: number;
  intervalMs?: number;
}): Promise<ProbeResult> {
  const { url, apiKey, bodies } = opts;
  const path = opts.path ?? '/openai/v1/chat/completions';
  const intervalMs = opts.intervalMs ?? 5;
  const probes = new Pool(url, { connections: 16, pipelining: 1, keepAliveTimeout: 30_000 });
  const big = new Pool(url, { connections: 1, pipelining: 1, keepAliveTimeout: 30_000, bodyTimeout: 120_000, headersTimeout: 120_000 });
  const one = async (): Promise<number> => {
    const t0 = performance.now();
    const res = await probes.request({ path: '/healthz', method: 'GET' });
    await res.body.text();
    if (res.statusCode !== 200) throw new Error(`/healthz answered ${res.statusCode}`);
    return performance.now() - t0;
  };
  // Every intervalMs a probe leaves, whether or not the previous ones came back (an open
  // loop: a stalled server shows as the time the probes wait, not as fewer probes).
  const run = async (until: Promise<unknown>): Promise<number[]> => {
    const inFlight: Array<Promise<number>> = [];
    let done = false;
    void until.finally(() => { done = true; });
    let next = performance.now();
    while (!done) {
      inFlight.push(one());
      next += intervalMs;
      const wait = next - performance.now();
      await new Promise((r) => setTimeout(r, Math.max(0, wait)));
    }
    return Promise.all(inFlight);
  };
  try {
    await Promise.all(Array.from({ length: 8 }, one)); // connections open, code warm
    const baseline = await run(new Promise((r) => setTimeout(r, opts.baselineMs ?? 2000)));
    const answers: BigAnswer[] = [];
    const sending = (async () => {
      for (const body of bodies) {
        const t0 = performance.now();
        const res = await big.request({ path, method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body });
        const text = await res.body.text();
        answers.push({ status: res.statusCode, ms: performance.now() - t0, head: text.slice(0, 300) });
      }
    })();
    const loaded = await run(sending);
    await sending;
    return { baseline: stats(baseline), loaded: stats(loaded), answers };
  } finally {
    await Promise.all([probes.close(), big.close()]);
  }
}
