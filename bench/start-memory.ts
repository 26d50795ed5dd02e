// Start time and idle memory of `gantry serve` on the embedded default, as a user runs it
// (`node src/main.ts serve`, a fresh data dir): the first start (PGlite initdb, migrations,
// seed), a restart on the same data dir, and the RSS of the idle process some seconds after
// each; beside them, in the same run, the RSS of a bare Fastify process (the floor of any
// Node HTTP server here). Each start is repeated `--runs` times; medians are printed. For each
// start, the CPU its threads had used when it listened (main, the database's, V8's background
// threads), from /proc (Linux).
// Usage: node bench/start-memory.ts [--runs 3] [--idle-seconds 15] [--env NAME=value …] [--root <checkout>]
// (the idle RSS is read after V8's memory reducer, which runs ~10 s after a start goes idle and
// gives back ~50 MB of memory V8 kept pooled: read before it, the number is the reducer's timing.)
// (--env sets a variable for Gantry's starts, e.g. --env GANTRY_PGLITE_SHARED_BUFFERS=16MB.)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { rssBytes, threadsCpuMs } from './proc.ts';

const arg = (name: string, def: number) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : def);
const runs = arg('--runs', 3);
const serveEnv: Record<string, string> = {};
for (let i = 0; i < process.argv.length - 1; i++) {
  if (process.argv[i] !== '--env') continue;
  const kv = process.argv[i + 1]!;
  if (!kv.includes('=')) throw new Error(`--env takes NAME=value, got ${kv}`);
  serveEnv[kv.slice(0, kv.indexOf('='))] = kv.slice(kv.indexOf('=') + 1);
}
const idleMs = arg('--idle-seconds', 15) * 1000;
// --root: start another checkout's server (e.g. a git worktree of an earlier commit) with this script
const root = process.argv.includes('--root') ? process.argv[process.argv.indexOf('--root') + 1]! : new URL('..', import.meta.url).pathname;

/** CPU ms of the process so far, by thread name: MainThread, WorkerThread (the database's), V8Worker (V8's background compilers and GC), the rest as other. */
function cpuByThread(pid: number): Record<string, number> {
  const out: Record<string, number> = { MainThread: 0, WorkerThread: 0, V8Worker: 0, other: 0 };
  for (const t of threadsCpuMs(pid)) out[t.name in out ? t.name : 'other']! += t.cpuMs;
  return out;
}

interface Start { startMs: number; rssMb: number; cpu: Record<string, number> }

/** Start a process, wait for `ready` in its output; ms to it and its threads' CPU then, then the RSS after the idle wait. */
async function measure(args: string[], env: Record<string, string>, ready: RegExp): Promise<Start> {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { cwd: root, env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const on = (c: Buffer) => {
      out += c;
      if (ready.test(out)) resolve();
    };
    child.stdout.on('data', on);
    child.stderr.on('data', on);
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  const startMs = performance.now() - t0;
  const cpu = cpuByThread(child.pid!);
  await delay(idleMs);
  const rss = rssBytes(child.pid!) / 2 ** 20;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return { startMs, rssMb: rss, cpu };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const bare = `import Fastify from 'fastify'; const a = Fastify(); a.get('/', async () => 'ok'); console.log('listening', await a.listen({ host: '127.0.0.1', port: 0 }));`;

const first: Start[] = [];
const restart: Start[] = [];
const floor: number[] = [];
for (let i = 0; i < runs; i++) {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-bench-start-'));
  try {
    first.push(await measure(['src/main.ts', 'serve'], { ...serveEnv, GANTRY_DATA_DIR: dir }, /listening on/));
    restart.push(await measure(['src/main.ts', 'serve'], { ...serveEnv, GANTRY_DATA_DIR: dir }, /listening on/));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  floor.push((await measure(['--input-type=module', '-e', bare], {}, /listening/)).rssMb);
}
const f = (n: number) => n.toFixed(0);
console.log(`runs ${runs}, idle ${idleMs / 1000} s (medians)${Object.keys(serveEnv).length ? `, ${JSON.stringify(serveEnv)}` : ''}`);
const cpu = (xs: Start[]) => Object.keys(xs[0]!.cpu).map((k) => `${k} ${f(median(xs.map((x) => x.cpu[k]!)))}`).join(', ');
console.log(`first start: ${f(median(first.map((r) => r.startMs)))} ms, idle RSS ${f(median(first.map((r) => r.rssMb)))} MB; CPU ms until listening: ${cpu(first)}`);
console.log(`restart:     ${f(median(restart.map((r) => r.startMs)))} ms, idle RSS ${f(median(restart.map((r) => r.rssMb)))} MB; CPU ms until listening: ${cpu(restart)}`);
console.log(`bare Fastify idle RSS ${f(median(floor))} MB`);
