// Batch throughput: N lines against the simulated upstream with a fixed latency L
// (GANTRY_SIM_TTFT_MS; output is a few tokens at a very high token rate, so L is nearly all
// of a line's upstream time) and batch concurrency C (GANTRY_BATCH_CONCURRENCY). The ideal
// is N × L / C; the ratio ideal / measured is reported (1.0 = no overhead at all), with the
// peak RSS of the Gantry process (VmHWM). Gantry runs as `npm start` runs it (a real
// process, embedded PGlite on disk, usage journal), the batch created through the API.
//
//   node bench/batch.ts                         # N=10000 L=100 C=50
//   node bench/batch.ts --lines 2000 --latency 50 --concurrency 20
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { lines: { type: 'string', default: '10000' }, latency: { type: 'string', default: '100' }, concurrency: { type: 'string', default: '50' } } });
const N = Number(values.lines);
const L = Number(values.latency);
const C = Number(values.concurrency);

const dataDir = mkdtempSync(join(tmpdir(), 'gantry-bench-batch-'));
// BENCH_PROFILE=<dir>: also write a CPU profile of the Gantry process there
const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
const child = spawn(process.execPath, [...profile, fileURLToPath(new URL('../src/main.ts', import.meta.url)), 'serve'], {
  env: {
    PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', GANTRY_DATA_DIR: dataDir,
    GANTRY_SIM_TTFT_MS: String(L), GANTRY_SIM_TOKENS_PER_S: '1000000', GANTRY_BATCH_CONCURRENCY: String(C),
    GANTRY_BATCH_TPM: String(1e12), GANTRY_JOBS_POLL_MS: '100',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
child.stdout!.on('data', (d) => { out += d; });
const base = await new Promise<string>((resolve, reject) => {
  child.stdout!.on('data', () => {
    const m = /listening on (http:\/\/[\d.:]+)/.exec(out);
    if (m) resolve(m[1]!);
  });
  child.once('exit', (code) => reject(new Error(`gantry exited with ${code}:\n${out}`)));
});

/** Peak and current RSS of the Gantry process, MiB (Linux /proc). */
function rss(): { peak: number; now: number } {
  const s = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0) / 1024;
  return { peak: Math.round(kb('VmHWM')), now: Math.round(kb('VmRSS')) };
}

try {
  const creds = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
  const auth = { authorization: `Bearer ${creds.apiKey}` };
  // The first team's voucher is small: top it up so that no line is refused for money.
  await fetch(`${base}/admin/v1/teams/${creds.userId}/topups`, {
    method: 'POST', headers: { authorization: `Bearer ${creds.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 1_000_000_000, idempotencyKey: 'bench' }),
  });
  const text = Array.from({ length: N }, (_, i) => JSON.stringify({
    custom_id: `r${i}`, method: 'POST', url: '/v1/chat/completions',
    body: { model: 'gantry/sim-chat-small', messages: [{ role: 'user', content: `line ${i}` }], max_tokens: 4 },
  })).join('\n');
  const form = new FormData();
  form.set('purpose', 'batch');
  form.set('file', new Blob([`${text}\n`]), 'bench.jsonl');
  const file = await (await fetch(`${base}/openai/v1/files`, { method: 'POST', headers: auth, body: form })).json() as { id: string };
  const baseline = rss();
  const started = performance.now();
  const created = await (await fetch(`${base}/openai/v1/batches`, {
    method: 'POST', headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '48h' }),
  })).json() as { id: string };
  let progressAt = 0;
  let b: { status: string; request_counts: { completed: number; failed: number } };
  for (;;) {
    b = await (await fetch(`${base}/openai/v1/batches/${created.id}`, { headers: auth })).json() as typeof b;
    if (!progressAt && b.status !== 'VALIDATING') progressAt = performance.now();
    if (!['VALIDATING', 'PROGRESS'].includes(b.status)) break;
    await delay(100);
  }
  const ended = performance.now();
  const ideal = (N * L) / C;
  const total = ended - started;
  const lines = ended - progressAt;
  const mem = rss();
  console.log(JSON.stringify({
    lines: N, latencyMs: L, concurrency: C, status: b.status, completed: b.request_counts.completed, failed: b.request_counts.failed,
    idealS: +(ideal / 1000).toFixed(1), totalS: +(total / 1000).toFixed(1), validateS: +((progressAt - started) / 1000).toFixed(1),
    ratio: +(ideal / total).toFixed(3), ratioLinesOnly: +(ideal / lines).toFixed(3),
    rssBeforeMiB: baseline.now, rssPeakMiB: mem.peak,
  }));
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}
