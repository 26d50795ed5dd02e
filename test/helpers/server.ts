// A real Gantry process (`node src/main.ts serve`) on 127.0.0.1 for multi-process tests.
// It is killed by the test, and by a watchdog if the test forgets.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { processCpuMs } from '../../bench/proc.ts';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

export interface Server {
  url: string;
  child: ChildProcess;
  output(): string;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * What a replica of a multi-process test runs with: the shared PostgreSQL and Redis and a data
 * dir of its own. CI runs two test files at once on two cores beside PostgreSQL, Redis and these
 * servers: a Redis answer 250 ms late there is CPU starvation, not an outage, hence a 2 s command
 * deadline (GANTRY_REDIS_TIMEOUT_MS; test/faults/redis-hang.services.test.ts checks the default).
 */
export function replicaEnv(databaseUrl: string, redisUrl: string, dataDir: string): Record<string, string> {
  return { GANTRY_REDIS_TIMEOUT_MS: '2000', DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, GANTRY_DATA_DIR: dataDir };
}

/** `entry`: a script to run instead of `src/main.ts serve` (a test's own server, e.g. job-server.ts). */
export async function startServer(env: Record<string, string>, opts: { watchdogMs?: number; entry?: string } = {}): Promise<Server> {
  const child = spawn(process.execPath, opts.entry ? [opts.entry] : [MAIN, 'serve'], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const watchdog = setTimeout(() => child.kill('SIGKILL'), opts.watchdogMs ?? 120_000);
  watchdog.unref();
  const exited = new Promise<void>((resolve) => child.once('exit', () => {
    clearTimeout(watchdog);
    resolve();
  }));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 60_000);
    const check = () => {
      const m = /listening on (http:\/\/[\d.:]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code ?? signal}:\n${out}`));
    });
  });
  return {
    url, child, output: () => out,
    kill: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/**
 * Run `node src/main.ts <args>` to its end (serve included, when it is expected to refuse):
 * its exit code and everything it wrote. Killed, and the promise rejected, after `timeoutMs`.
 */
export async function runGantry(args: string[], env: Record<string, string>, opts: { timeoutMs?: number } = {}): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`gantry ${args.join(' ')} did not end within ${opts.timeoutMs ?? 60_000} ms:\n${out}`));
    }, opts.timeoutMs ?? 60_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output: out });
    });
  });
}

/**
 * Resolves once process `pid` has gone quiet: at most 20 ms of CPU (two ticks) over `quietMs`,
 * what its job runner's polls cost, nothing like V8's background compilers at work on what
 * the start and the warm-up gave them (their memory is transient, and hundreds of MB at a
 * time on a slow machine: a baseline read while they run measures them).
 */
export async function serverQuiet(pid: number, quietMs = 500): Promise<void> {
  const samples: Array<{ at: number; cpuMs: number }> = [];
  for (const deadline = Date.now() + 60_000; ;) {
    samples.push({ at: Date.now(), cpuMs: processCpuMs(pid) });
    while (samples.length > 1 && samples[samples.length - 1]!.at - samples[1]!.at >= quietMs) samples.shift();
    const first = samples[0]!;
    const last = samples[samples.length - 1]!;
    if (last.at - first.at >= quietMs && last.cpuMs - first.cpuMs <= 20) return;
    assert.ok(Date.now() < deadline, 'the server never went quiet');
    await new Promise((r) => setTimeout(r, 50));
  }
}
