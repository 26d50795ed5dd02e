// Start time and idle memory of `gantry serve` on the embedded default, as a user runs it
// (`node src/main.ts serve`, a fresh data dir): the first start (PGlite initdb, migrations,
// seed), a restart on the same data dir, and the RSS of the idle process some seconds after
// each; beside them, in the same run, the RSS of a bare Fastify process (the floor of any
// Node HTTP server here). Each start is repeated `--runs` times; medians are printed.
// Usage: node bench/start-memory.ts [--runs 3] [--idle-seconds 15] [--env NAME=value …]
// (the idle RSS is read after V8's memory reducer, which runs ~10 s after a start goes idle and
// gives back ~50 MB of memory V8 kept pooled: read before it, the number is the reducer's timing.)
// (--env sets a variable for Gantry's starts, e.g. --env GANTRY_PGLITE_SHARED_BUFFERS=16MB.)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

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
const root = new URL('..', import.meta.url).pathname;

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) / 1024;
}

/** Start a process, wait for `ready` in its output; ms to it, then the RSS after the idle wait. */
async function measure(args: string[], env: Record<string, string>, ready: RegExp): Promise<{ startMs: number; rssMb: number }> {
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
  await delay(idleMs);
  const rss = rssMb(child.pid!);
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return { startMs, rssMb: rss };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const bare = `import Fastify from 'fastify'; const a = Fastify(); a.get('/', async () => 'ok'); console.log('listening', await a.listen({ host: '127.0.0.1', port: 0 }));`;

const first: Array<{ startMs: number; rssMb: number }> = [];
const restart: Array<{ startMs: number; rssMb: number }> = [];
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
console.log(`first start: ${f(median(first.map((r) => r.startMs)))} ms, idle RSS ${f(median(first.map((r) => r.rssMb)))} MB`);
console.log(`restart:     ${f(median(restart.map((r) => r.startMs)))} ms, idle RSS ${f(median(restart.map((r) => r.rssMb)))} MB`);
console.log(`bare Fastify idle RSS ${f(median(floor))} MB`);
