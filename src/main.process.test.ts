// First start and later starts, as a newcomer sees them: a real process on a fresh data dir.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { COMPILE_CACHE_DIR } from './lib/compile-cache.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), 'gantry-main-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

async function start(extraEnv: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string; out: () => string }> {
  const { MALLOC_MMAP_THRESHOLD_: _, ...inherited } = process.env;
  const child = spawn(process.execPath, ['src/main.ts', 'serve'], {
    cwd: ROOT, env: { ...inherited, GANTRY_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn', DATABASE_URL: '', REDIS_URL: '', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listen line within 60 s:\n${out}`)), 60_000); // a first start initializes a database: slow on a loaded machine
    child.stdout!.on('data', () => {
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}:\n${out}`)));
  });
  return { child, url, out: () => out };
}

/** The environment a process was (re-)executed with, as the kernel holds it. */
function environOf(pid: number): Record<string, string> {
  return Object.fromEntries(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

test('first start seeds, prints and saves credentials; later starts reuse the store', { timeout: 90_000 }, async () => {
  const first = await start();
  const credPath = join(dataDir, 'credentials.json');
  const creds = JSON.parse(readFileSync(credPath, 'utf8'));
  assert.deepEqual(Object.keys(creds).sort(), ['adminToken', 'apiKey', 'keyId', 'ownerMemberId', 'store', 'userId']);
  assert.equal(creds.store, 'embedded', 'the store the file was written for (cli/credentials.ts)');
  assert.equal(statSync(credPath).mode & 0o777, 0o600);
  assert.match(first.out(), new RegExp(creds.apiKey));
  const bal = await fetch(`${first.url}/openapi/v1/billing/balance/detail`, { headers: { authorization: `Bearer ${creds.apiKey}` } });
  assert.equal(bal.status, 200);
  const body = await bal.json() as Record<string, string>;
  for (const f of ['availableBalance', 'cashBalance', 'creditLimit', 'pendingCharges', 'outstandingInvoices']) assert.equal(typeof body[f], 'string', f);
  assert.equal(body.availableBalance, '1000000', 'a $100 starting voucher');
  const teams = await fetch(`${first.url}/admin/v1/teams`, { headers: { authorization: `Bearer ${creds.adminToken}` } });
  assert.equal(((await teams.json()) as { teams: { name: string }[] }).teams[0]!.name, 'default');

  // The operator CLI talks to the running server with the saved token.
  const run = promisify(execFile);
  const cli = await run(process.execPath, ['bin/gantry.mjs', 'admin', 'teams', 'create', '--name', 'acme', '--owner-email', 'a@acme.io'], {
    cwd: ROOT, env: { ...process.env, GANTRY_DATA_DIR: dataDir, GANTRY_URL: first.url },
  });
  assert.match(JSON.parse(cli.stdout).userId, /^usr_/);
  // The server re-executed itself (same pid) with glibc's allocator, V8's heap and its WebAssembly tiering tuned (lib/malloc-tuning.ts).
  if (process.platform === 'linux') {
    assert.equal(environOf(first.child.pid!).MALLOC_MMAP_THRESHOLD_, '32768');
    const argv = readFileSync(`/proc/${first.child.pid}/cmdline`, 'utf8').split('\0');
    for (const f of ['--max-semi-space-size=8', '--heap-growing-percent=30', '--wasm-tiering-budget=130000000']) assert.ok(argv.includes(f), `${f} in ${argv.join(' ')}`);
    // and with the compile cache named, so Node had it on before the first module (lib/compile-cache.ts)
    if (process.env.NODE_COMPILE_CACHE === undefined && process.env.NODE_DISABLE_COMPILE_CACHE === undefined) {
      assert.equal(environOf(first.child.pid!).NODE_COMPILE_CACHE, COMPILE_CACHE_DIR);
    }
  }
  await stop(first.child);

  // An operator's own setting is kept as given.
  const second = await start({ MALLOC_MMAP_THRESHOLD_: '65536' });
  if (process.platform === 'linux') assert.equal(environOf(second.child.pid!).MALLOC_MMAP_THRESHOLD_, '65536');
  assert.match(second.out(), /existing store/);
  assert.match(second.out(), new RegExp(credPath.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')));
  assert.doesNotMatch(second.out(), new RegExp(creds.apiKey), 'secrets are shown once');
  assert.deepEqual(JSON.parse(readFileSync(credPath, 'utf8')), creds);
  const again = await fetch(`${second.url}/openapi/v1/billing/balance/detail`, { headers: { authorization: `Bearer ${creds.apiKey}` } });
  assert.equal(again.status, 200);
  await stop(second.child);
});

test('a bad configuration reports every problem at once and exits 2', async () => {
  const run = promisify(execFile);
  await assert.rejects(
    run(process.execPath, ['src/main.ts', 'serve'], { cwd: ROOT, env: { ...process.env, PORT: 'abc', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud', GANTRY_REDIS_TIMEOUT_MS: '5' } }),
    (e: { code: number; stderr: string }) => {
      assert.equal(e.code, 2);
      assert.match(e.stderr, /PORT/);
      assert.match(e.stderr, /DATABASE_URL/);
      assert.match(e.stderr, /LOG_LEVEL/);
      assert.match(e.stderr, /GANTRY_REDIS_TIMEOUT_MS/);
      return true;
    },
  );
});
