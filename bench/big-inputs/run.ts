// bench/big-inputs: does an 8 MB prompt stall the other requests of a Gantry process?
// A real Gantry (`node src/main.ts serve`, embedded PGlite on disk, as `npm start` runs it)
// answers a steady stream of GET /healthz alone (baseline), then while four 8 MB chat
// prompts arrive one after another, for each scenario:
//  - refused: ordinary text to gantry/sim-chat-small (32,768-token context): 400 on the context rule;
//  - sim: the same size to a simulator model with a 4,000,000-token context: answered 200
//    (the whole prompt is tokenized, hashed for the seed, and billed);
//  - http: the same to an OpenAI-compatible upstream (bench/gateway/mock.ts) with that context:
//    the body is serialized again and forwarded.
// The server's own stalls are measured too (loop-stalls.ts): the longest time its event loop
// could not run, and the main-thread CPU in it, which tells its own work from waiting for a
// core on a busy machine. Exits 1 when the /healthz p99 check fails.
// Usage: node bench/big-inputs/run.ts [--write] [--rounds N] [--only refused|sim|http]   (--write updates bench/README.md)
//        BENCH_PROFILE=<dir> also writes a CPU profile of the Gantry process there.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bigChatBody, probeHealthz, type ProbeResult } from './probe.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const args = process.argv.slice(2);
const rounds = Number(args[args.indexOf('--rounds') + 1] ?? 0) || 1;
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined; // a scenario's first word
const BODY_BYTES = 8 * 1024 * 1024 - 1024; // just under the LLM routes' 8 MiB default limit
const children: ChildProcess[] = [];

interface Stalls {
  /** the longest time the server's event loop could not run a 1 ms timer */
  maxMs: number;
  /** the most CPU its main thread spent within one such stall */
  maxCpuMs: number;
  /** the longest the main thread waited (for a core) within one stall */
  maxWaitMs: number;
}

interface Started {
  child: ChildProcess;
  match: RegExpExecArray;
  /** the server's worst event-loop stall since the last call (bench/big-inputs/loop-stalls.ts) */
  loop(): Promise<Stalls>;
}

function startProcess(argv: string[], env: Record<string, string>, ready: RegExp): Promise<Started> {
  const child = spawn(process.execPath, argv, { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let waiting: ((v: Stalls) => void) | undefined;
  const loop = () => new Promise<Stalls>((r) => {
    waiting = r;
    child.kill('SIGUSR2');
  });
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d;
      const answer = /\{"stalls":(\{[^}]*\})\}\n/.exec(out);
      if (answer) {
        out = out.replace(answer[0], '');
        waiting?.(JSON.parse(answer[1]!));
      }
      const m = ready.exec(out);
      if (m) resolve({ child, match: m, loop });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d) => { out += d; });
    if (process.env.BENCH_GANTRY_LOG) child.stdout!.on('data', (d) => appendFileSync(process.env.BENCH_GANTRY_LOG!, d));
    child.once('exit', (code) => reject(new Error(`${argv.join(' ')} exited with ${code}:\n${out}`)));
  });
}

async function api(url: string, token: string, method: string, path: string, body: unknown) {
  const res = await fetch(url + path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

const dataDir = mkdtempSync(join(tmpdir(), 'gantry-bench-big-'));
try {
  const mock = await startProcess([here('../gateway/mock.ts')], {}, /"url":"(http:[^"]+)"/);
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  // BENCH_GANTRY_FLAGS: extra node flags for the Gantry process (e.g. --trace-gc, its output in BENCH_GANTRY_LOG).
  profile.push(...(process.env.BENCH_GANTRY_FLAGS ?? '').split(' ').filter(Boolean));
  const gantry = await startProcess([...profile, '--import', here('./loop-stalls.ts'), here('../../src/main.ts'), 'serve'], {
    HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', GANTRY_DATA_DIR: dataDir, GANTRY_SEED_VOUCHER_UNITS: '1000000000000',
    GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '100000',
  }, /listening on (http:\/\/[\d.:]+)/);
  const url = gantry.match[1]!;
  const creds = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
  const { adminToken, userId, apiKey } = creds;
  const long = { contextSize: 4_000_000, inputTokenPricePerM: 1, outputTokenPricePerM: 1, status: 'available' };
  await api(url, adminToken, 'POST', '/admin/v1/models', { id: 'bench/long-sim', title: 'Long (sim)', ...long, upstream: 'sim' });
  await api(url, adminToken, 'POST', '/admin/v1/models', { id: 'bench/long-http', title: 'Long (http)', ...long, upstream: { url: `${mock.match[1]}/v1`, model: 'mock' } });
  for (const [quotaType, currentQuota] of [['RPM', '100000'], ['TPM', '1000000000']]) {
    await api(url, adminToken, 'PUT', `/admin/v1/teams/${userId}/quotas`, { model: 'gantry/sim-chat-small', quotaType, currentQuota });
  }
  const scenarios = [
    { name: 'refused: 8 MB to a 32k-context sim model (400)', model: 'gantry/sim-chat-small', status: 400 },
    { name: 'sim: 8 MB to a 4M-context sim model (200)', model: 'bench/long-sim', status: 200 },
    { name: 'http: 8 MB forwarded to an HTTP upstream (200)', model: 'bench/long-http', status: 200 },
  ];
  const rows: string[] = [];
  let worstP99 = 0;
  let worstCpu = 0;
  for (let round = 0; round < rounds; round++) {
    for (const s of scenarios.filter((x) => !only || x.name.startsWith(only))) {
      const bodies = [0, 1, 2, 3].map((i) => bigChatBody(s.model, BODY_BYTES, round * 4 + i));
      await gantry.loop();
      const r: ProbeResult = await probeHealthz({ url, apiKey, bodies });
      const loop = await gantry.loop(); // baseline and loaded phases together: the worst stall is the loaded one
      const statuses = r.answers.map((a) => a.status);
      if (statuses.some((x) => x !== s.status)) process.stderr.write(`${s.name}: unexpected answers ${JSON.stringify(r.answers.map((a) => `${a.status} ${a.head}`))}\n`);
      worstP99 = Math.max(worstP99, r.loaded.p99Ms);
      worstCpu = Math.max(worstCpu, loop.maxCpuMs);
      const f = (x: number) => x.toFixed(1);
      const row = `| ${s.name} | ${statuses.join(' ')} | ${r.answers.map((a) => f(a.ms)).join(' / ')} | ${f(r.baseline.p50Ms)} / ${f(r.baseline.p99Ms)} | ${f(r.loaded.p50Ms)} / ${f(r.loaded.p99Ms)} / ${f(r.loaded.maxMs)} | ${r.loaded.n} | ${f(loop.maxMs)} / ${f(loop.maxCpuMs)} / ${f(loop.maxWaitMs)} |`;
      rows.push(row);
      process.stderr.write(row + '\n');
    }
  }
  const table = [
    '| scenario (four 8 MB prompts, one after another) | answers | each answered in, ms | /healthz alone p50 / p99 ms | /healthz meanwhile p50 / p99 / max ms | probes | server\'s longest event-loop stall / most main-thread CPU in one / longest wait for a core in one, ms |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
  const verdict = worstP99 < 50 ? 'PASS' : 'FAIL';
  const summary = `${table}\n\nCheck: /healthz p99 while 8 MB prompts arrived < 50 ms: ${verdict} (worst ${worstP99.toFixed(1)} ms); ` +
    `the server's own work never held its event loop longer than ${worstCpu.toFixed(1)} ms of CPU. ` +
    `Run: ${new Date().toISOString()}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load average ${loadavg()[0]!.toFixed(1)}, Node ${process.version}; one probe every 5 ms.`;
  process.stdout.write(summary + '\n');
  process.exitCode = verdict === 'PASS' ? 0 : 1;
  if (args.includes('--write')) {
    const readme = here('../README.md');
    const begin = '<!-- big-inputs:results:begin -->';
    const end = '<!-- big-inputs:results:end -->';
    const text = readFileSync(readme, 'utf8');
    if (!text.includes(begin)) throw new Error(`bench/README.md has no ${begin} marker`);
    writeFileSync(readme, text.slice(0, text.indexOf(begin) + begin.length) + '\n' + summary + '\n' + text.slice(text.indexOf(end)));
  }
} finally {
  await Promise.all(children.map(async (c) => {
    c.removeAllListeners('exit');
    if (c.exitCode !== null || c.signalCode !== null) return;
    const exited = once(c, 'exit');
    c.kill('SIGTERM');
    await exited;
  }));
  rmSync(dataDir, { recursive: true, force: true });
}
