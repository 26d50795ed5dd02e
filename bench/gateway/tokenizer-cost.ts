// What counting prompts with a named tokenizer costs the gateway per request: one Gantry, one
// mock upstream, three models on it that differ only in their upstream's `tokenizer`: none
// (the lower bound), `cl100k_base` (an OpenAI encoding), and cl100k_base written as a Hugging
// Face tokenizer.json (test/helpers/tokenizer-json.ts; the library that runs such files). The
// cells alternate (none, encoding, file, then again) so drift on a shared machine hits all
// alike; the spread of the cells of the same model gives the noise. Medians of the rounds.
// Same request as bench/gateway/run.ts.
// Before that, in this process: each tokenizer's load time and µs per chat prompt, and the
// adversarial table (issue 40): texts made to be slow (one letter, spaces, digits, CJK without
// punctuation, combining marks, emoji, letters without spaces) and ordinary prose at growing
// sizes, counted by Gantry's counters (the encoding, the tokenizer.json) and, as the baseline
// in the same run, by the `gpt-tokenizer` package's own countTokens (what counted encodings
// before: its merge loop is quadratic in a pre-token), each with the most main-thread CPU
// between two turns of the event loop. The package is stopped at the first size over 2 s.
// Usage: node bench/gateway/tokenizer-cost.ts [--seconds N] [--conns 50] [--rounds 5] [--warmup S] [--count-only]
// (--count-only: the in-process tables alone, no servers)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from './load.ts';
import { api, setupGantry, type BenchGantry } from './setup.ts';
import { children, start } from './servers.ts';
import { cl100kTokenizerJson } from '../../test/helpers/tokenizer-json.ts';
import { measurePrompts, type Counting } from '../../src/gateway/context.ts';
import { type TextTokenizer, tokenizerFor } from '../../src/lib/tokenizers.ts';
import { countTokens as packageCount } from 'gpt-tokenizer/encoding/cl100k_base';

const args = process.argv.slice(2);
const arg = (name: string, dflt: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : dflt);
const seconds = arg('--seconds', 4);
const conns = arg('--conns', 50);
const rounds = arg('--rounds', 5);
const warmupS = arg('--warmup', 10);
const dir = mkdtempSync(join(tmpdir(), 'gantry-bench-tok-'));

try {
  const file = join(dir, 'tokenizer.json');
  writeFileSync(file, JSON.stringify(cl100kTokenizerJson()));
  await inProcess(file);
  await adversarial(file);
  if (args.includes('--count-only')) {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  }
  const mock = await start('mock.ts');
  const gantry: BenchGantry & { cpuUs(): Promise<{ cpuUs: number }> } = await start('gantry.ts');
  await setupGantry(gantry, mock.url);
  const models = { none: 'bench/mock', encoding: 'bench/mock-cl100k', file: 'bench/mock-tokenizer-json' };
  const tokenizers: Record<string, string> = { encoding: 'cl100k_base', file };
  for (const [kind, id] of Object.entries(models)) {
    if (kind === 'none') continue;
    await api(gantry.url, gantry.creds.adminToken, 'POST', '/admin/v1/models', {
      id, title: id, contextSize: 8192, inputTokenPricePerM: 100, outputTokenPricePerM: 200, status: 'available', upstream: { url: `${mock.url}/v1`, model: 'mock', tokenizer: tokenizers[kind] },
    });
  }
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${gantry.creds.apiKey}` };
  const body = (model: string) => JSON.stringify({ model, messages: [{ role: 'user', content: 'Say hello in one short sentence.' }], max_tokens: 16 });
  // Warm-up, unmeasured (as run.ts: the hot code tiers up first), each model in turn.
  for (let i = 0; i < 2; i++) for (const id of Object.values(models)) await load(gantry.url, '/openai/v1/chat/completions', headers, body(id), 50, 0, warmupS * 1000 / 6);
  const cells: Record<string, Array<{ reqPerS: number; cpuUs: number; p50Ms: number }>> = {};
  for (let round = 0; round < rounds; round++) {
    for (const [kind, id] of Object.entries(models)) {
      const cpu0 = await gantry.cpuUs();
      const r = await load(gantry.url, '/openai/v1/chat/completions', headers, body(id), conns, 1000, seconds * 1000);
      const cpu1 = await gantry.cpuUs();
      if (r.errors) throw new Error(`${kind}: ${r.errors} errors`);
      const cell = { reqPerS: r.reqPerS, cpuUs: (cpu1.cpuUs - cpu0.cpuUs) / r.totalRequests, p50Ms: r.p50Ms };
      cells[kind] ??= [];
      cells[kind].push(cell);
      process.stderr.write(`${kind.padEnd(9)} round ${round + 1}: ${cell.reqPerS.toFixed(0).padStart(6)} req/s  p50 ${cell.p50Ms.toFixed(3)} ms  server CPU ${cell.cpuUs.toFixed(0)} µs/req\n`);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const spread = (xs: number[]) => (Math.max(...xs) - Math.min(...xs)) / median(xs);
  const none = cells.none!;
  const base = median(none.map((c) => c.reqPerS));
  const baseCpu = median(none.map((c) => c.cpuUs));
  console.log(`| tokenizer | req/s (${conns} conn, median of ${rounds}) | × none | spread of its cells | server CPU µs/req | Δ CPU µs/req |`);
  console.log('|---|---|---|---|---|---|');
  for (const [kind, cs] of Object.entries(cells)) {
    const rps = median(cs.map((c) => c.reqPerS));
    const cpu = median(cs.map((c) => c.cpuUs));
    console.log(`| ${kind} | ${rps.toFixed(0)} | ${(rps / base).toFixed(3)} | ${(spread(cs.map((c) => c.reqPerS)) * 100).toFixed(0)} % | ${cpu.toFixed(0)} | ${(cpu - baseCpu >= 0 ? '+' : '')}${(cpu - baseCpu).toFixed(0)} |`);
  }
} finally {
  await Promise.all(children.map((c) => new Promise((r) => { c.once('exit', r); c.stdin?.end(); })));
  rmSync(dir, { recursive: true, force: true });
}

/**
 * The count alone, in this process: each tokenizer's load time, then µs per chat prompt
 * measured as the gateway does (measurePrompts), next to the lower bound it replaces.
 */
async function inProcess(file: string): Promise<void> {
  const prompts = {
    'the bench prompt (32 B)': [{ role: 'user', content: 'Say hello in one short sentence.' }],
    'a 4 KB prompt': [{ role: 'system', content: 'You are a careful assistant. '.repeat(40) }, { role: 'user', content: 'Summarize the following notes, please: the river, the stone, the garden. '.repeat(40) }],
  };
  const countings: Record<string, Counting> = { 'lower bound': 'bound' };
  for (const [kind, spec] of [['encoding', 'cl100k_base'], ['file', file]] as const) {
    const t0 = performance.now();
    countings[kind] = await tokenizerFor(spec);
    console.log(`${kind}: loaded in ${(performance.now() - t0).toFixed(0)} ms`);
  }
  console.log('\n| prompt | lower bound µs | encoding µs | tokenizer.json µs |\n|---|---|---|---|');
  for (const [name, messages] of Object.entries(prompts)) {
    const row: string[] = [];
    for (const counting of Object.values(countings)) {
      for (let i = 0; i < 500; i++) await measurePrompts('chat.completions', { messages }, counting, 8192);
      // a second of counting; a different last character each time, so nothing answers from a cache of whole texts
      const t0 = performance.now();
      let n = 0;
      for (; performance.now() - t0 < 1000; n++) await measurePrompts('chat.completions', { messages: [...messages.slice(0, -1), { role: 'user', content: messages.at(-1)!.content + (n % 97) }] }, counting, 8192);
      row.push(((performance.now() - t0) * 1000 / n).toFixed(1));
    }
    console.log(`| ${name} | ${row.join(' | ')} |`);
  }
  console.log('');
}

/** Wall ms of one count, and the most main-thread CPU ms between two turns of the event loop meanwhile. */
async function timed(count: () => unknown): Promise<{ ms: number; stallMs: number }> {
  let stallMs = 0;
  let last = process.threadCpuUsage();
  let on = true;
  const tick = () => {
    const now = process.threadCpuUsage();
    stallMs = Math.max(stallMs, (now.user + now.system - last.user - last.system) / 1000);
    last = now;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  const t0 = performance.now();
  await count();
  const ms = performance.now() - t0;
  on = false;
  const now = process.threadCpuUsage();
  return { ms, stallMs: Math.max(stallMs, (now.user + now.system - last.user - last.system) / 1000) };
}

/** The adversarial table: ms (and the longest CPU between turns) per text and size, each counter. */
async function adversarial(file: string): Promise<void> {
  const mine: Record<string, TextTokenizer> = { encoding: await tokenizerFor('cl100k_base'), 'tokenizer.json': await tokenizerFor(file) };
  const AS_TEXT = { disallowedSpecial: new Set<string>() };
  const ADVERSARIAL: Record<string, (n: number) => string> = {
    'prose (baseline)': (n) => 'The quick brown fox jumps over the lazy dog; 42 rivers run to the sea.\n'.repeat(Math.ceil(n / 71)).slice(0, n),
    'one letter': (n) => 'a'.repeat(n),
    'letters, no spaces': (n) => 'abcdefghijklmnopqrstuvwxyz'.repeat(Math.ceil(n / 26)).slice(0, n),
    spaces: (n) => `${' '.repeat(n - 1)}x`,
    digits: (n) => '7'.repeat(n),
    'CJK, no punctuation': (n) => '漢'.repeat(n),
    'combining marks': (n) => `e${'\u0301'.repeat(n - 1)}`,
    emoji: (n) => '👩‍👧'.repeat(Math.ceil(n / 5)).slice(0, n),
  };
  const sizes = [8_192, 32_768, 131_072];
  console.log(`| text | chars | package (before) ms | encoding ms | tokenizer.json ms | package ÷ encoding | longest CPU between turns, package / encoding / file ms |\n|---|---|---|---|---|---|---|`);
  for (const [name, make] of Object.entries(ADVERSARIAL)) {
    let packageOn = true;
    for (const n of sizes) {
      const text = make(n);
      const pkg = packageOn ? await timed(() => packageCount(text, AS_TEXT)) : undefined;
      if (pkg && pkg.ms > 2000) packageOn = false;
      const enc = await timed(() => mine.encoding!.count(text, Number.MAX_SAFE_INTEGER));
      const tj = await timed(() => mine['tokenizer.json']!.count(text, Number.MAX_SAFE_INTEGER));
      const cell = (x?: { ms: number }) => (x ? x.ms.toFixed(1) : '(stopped)');
      console.log(`| ${name} | ${n} | ${cell(pkg)} | ${cell(enc)} | ${cell(tj)} | ${pkg ? (pkg.ms / enc.ms).toFixed(1) : ''} | ${pkg ? pkg.stallMs.toFixed(0) : '–'} / ${enc.stallMs.toFixed(0)} / ${tj.stallMs.toFixed(0)} |`);
    }
  }
  console.log('');
}
