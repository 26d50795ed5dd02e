// `npm install`'s last step (package.json "postinstall"), which never fails the install:
// without what it prepares a first start is only slower.
// 1. The embedded database's template (store/pglite-template.ts): a first start copies it
//    instead of running initdb and every migration.
// 2. Node's compile cache (lib/compile-cache.ts), warmed by one real start of the server on a
//    throwaway data dir: the modules a start loads, on both of its threads, with the node flags
//    it runs with (the cache's key includes them), so the first start after an install reads
//    them compiled instead of stripping and compiling ~1,000 modules.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildTemplate } from './store/pglite-template-build.ts';

const WARM_TIMEOUT_MS = 60_000;

async function template(): Promise<void> {
  const t0 = performance.now();
  try {
    const file = await buildTemplate();
    say(`embedded database template ready (${file}, ${Math.round(performance.now() - t0)} ms)`);
  } catch (e) {
    say(`no embedded database template (${(e as Error).message}); the first start runs initdb instead`);
  }
}

/** One start of `gantry serve` until it listens, then a clean stop (the cache is written at exit). */
async function warmCompileCache(): Promise<void> {
  const t0 = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'gantry-warm-'));
  // only what a default start needs: never an operator's database, Redis or upstreams
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, GANTRY_DATA_DIR: dir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn' };
  for (const k of ['NODE_COMPILE_CACHE', 'NODE_DISABLE_COMPILE_CACHE']) if (process.env[k] !== undefined) env[k] = process.env[k];
  const child = spawn(process.execPath, [fileURLToPath(new URL('./main.ts', import.meta.url)), 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let out = '';
    const outcome = await new Promise<string>((resolve) => {
      const timer = setTimeout(() => resolve(`no listen line within ${WARM_TIMEOUT_MS / 1000} s`), WARM_TIMEOUT_MS);
      const on = (d: Buffer) => {
        out += d;
        if (out.includes('listening on')) {
          clearTimeout(timer);
          resolve('');
        }
      };
      child.stdout.on('data', on);
      child.stderr.on('data', on);
      child.once('exit', (code) => {
        clearTimeout(timer);
        resolve(`the server exited (${code}): ${out.trim().split('\n').at(-1) ?? ''}`);
      });
      child.once('error', (e) => resolve(e.message));
    });
    if (outcome) {
      say(`the compile cache was not warmed (${outcome}); the first start compiles the modules itself`);
      return;
    }
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    say(`compile cache warmed (${Math.round(performance.now() - t0)} ms)`);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

function say(line: string): void {
  process.stdout.write(`gantry: ${line}\n`);
}

await template();
await warmCompileCache();
