// The examples of the README and of every page of docs/ work as written on a fresh start, each
// after the ones above it on its page. For each page, a real server on a fresh data dir: every
// command of its ```sh blocks but those that start servers, install or run test suites (npm,
// an env-prefixed command, createdb, kind, kubectl, npx node --test) runs, in order, in one
// bash, and each must succeed (exit 0; curl with --fail-with-body, so a 4xx/5xx fails). Then
// its ```js blocks run with the pinned Node, in order, against the same server: a block that
// imports is a program, and a block without imports continues the program above it (in a
// block scope of its own, so it may reuse a name). What the test fills in: the server's address
// for http://127.0.0.1:8080, the first team's ids for the `usr_…` and `mem_…` placeholders,
// `npx gantry` as this checkout's bin/gantry.mjs (npx would resolve the same file from the
// project directory; here the working directory is the fresh data dir's parent). Blocks fenced
// ```sh on-a-gpu-server or ```sh deploy are not run (test/helpers/doc-pages.ts, SHELL_FENCES;
// test/docs.test.ts refuses any other word and checks the blocks are still found).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startServer, type Server } from './helpers/server.ts';
import { examplePages, jsPrograms, read, ROOT, runnable, shellCommands } from './helpers/doc-pages.ts';

const servers: Server[] = [];
const dirs: string[] = [];
after(async () => {
  for (const s of servers) await s.kill('SIGTERM');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Runs a program to its end (or kills it after `timeoutMs`): its exit code and everything it wrote. */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/** The page's shell commands as one bash script that marks the end of each, with the server and ids filled in. */
function script(commands: string[], server: Server, creds: { userId: string; ownerMemberId: string }): { filled: string[]; text: string } {
  const filled = commands.map((c) => c
    .replaceAll('http://127.0.0.1:8080', server.url)
    .replaceAll('usr_…', creds.userId)
    .replaceAll('mem_…', creds.ownerMemberId));
  for (const c of filled) assert.doesNotMatch(c, /…|<[a-zA-Z]+>/, `a placeholder the test cannot fill: ${c}`);
  const text = [
    'set -o pipefail',
    'npx() { if [ "$1" = gantry ]; then shift; "$GANTRY_NODE" "$GANTRY_BIN" "$@"; else echo "npx $1: not an example of the pages" >&2; return 127; fi; }',
    'gantry() { "$GANTRY_NODE" "$GANTRY_BIN" "$@"; }',
    'curl() { command curl --fail-with-body --silent --show-error --max-time 20 "$@"; }',
    // curl's answers end without a newline: the marker starts a line of its own
    ...filled.flatMap((c, i) => [c, `rc=$?; printf '\\n@@step ${i} rc=%s\\n' "$rc"`]),
  ].join('\n');
  return { filled, text };
}

/** Every step ran, in order, and exited 0: each step's output is what came after the previous marker. */
function assertSteps(page: string, filled: string[], out: string): void {
  const parts = out.split(/^@@step (\d+) rc=(\d+)$/m);
  const seen: number[] = [];
  for (let i = 1; i < parts.length; i += 3) {
    const step = Number(parts[i]);
    seen.push(step);
    assert.equal(Number(parts[i + 1]), 0, `${page}: command failed (exit ${parts[i + 1]}):\n${filled[step]}\n--- output ---\n${parts[i - 1]!.slice(-2000)}`);
  }
  assert.deepEqual(seen, filled.map((_, i) => i), `${page}: not every command ran:\n${out.slice(-2000)}`);
}

interface Fresh { dir: string; server: Server; creds: { userId: string; ownerMemberId: string } }

/** A server on a fresh data dir of its own. */
async function fresh(): Promise<Fresh> {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-docs-'));
  dirs.push(dir);
  const server = await startServer({ GANTRY_DATA_DIR: join(dir, 'data'), GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '100000' }, { watchdogMs: 300_000 });
  servers.push(server);
  return { dir, server, creds: JSON.parse(readFileSync(join(dir, 'data', 'credentials.json'), 'utf8')) };
}

async function runPage(page: string, markdown: string, ready: Promise<Fresh>, say: (s: string) => void): Promise<void> {
  const started = performance.now();
  const { dir, server, creds } = await ready;
  say(`server ready after ${Math.round(performance.now() - started)} ms more`);
  const { filled, text } = script(shellCommands(markdown).filter(runnable), server, creds);
  const env = {
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, HOME: dir,
    GANTRY_URL: server.url, GANTRY_NODE: process.execPath, GANTRY_BIN: join(ROOT, 'bin', 'gantry.mjs'),
  };
  const shell = await run('bash', ['-c', text], dir, env, 150_000);
  assert.equal(shell.code, 0, shell.out.slice(-4000));
  assertSteps(page, filled, shell.out);
  say(`${filled.length} shell commands done after ${Math.round(performance.now() - started)} ms`);

  // the JavaScript examples, in the same directory (./data/credentials.json), with the
  // project's packages (openai, @anthropic-ai/sdk) found through a node_modules link
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  for (const [i, program] of jsPrograms(markdown).entries()) {
    const file = join(dir, `example-${i}.mjs`);
    writeFileSync(file, program.replaceAll('http://127.0.0.1:8080', server.url));
    const r = await run(process.execPath, [file], dir, { PATH: process.env.PATH ?? '', HOME: dir }, 60_000);
    assert.equal(r.code, 0, `${page}: js example failed (exit ${r.code}):\n${program}\n--- output ---\n${r.out.slice(-3000)}`);
  }
  say(`js examples done after ${Math.round(performance.now() - started)} ms`);
  await server.kill('SIGTERM');
}

const pages = examplePages().map((page) => ({ page, markdown: read(page) }))
  // a page of prose and unrun blocks has nothing to start a server for
  .filter(({ markdown }) => shellCommands(markdown).filter(runnable).length + jsPrograms(markdown).length > 0);
// Each page's server starts while the page before it runs: a start is most of a short page's time.
const starts: Promise<Fresh>[] = [];
function serverFor(i: number): Promise<Fresh> {
  starts[i] ??= fresh();
  starts[i].catch(() => {}); // reported by the page's own test
  return starts[i];
}
for (const [i, { page, markdown }] of pages.entries()) {
  test(`${page}: every shell and JavaScript example succeeds against a fresh Gantry`, { timeout: 240_000 }, (t) => {
    const ready = serverFor(i);
    if (i + 1 < pages.length) void serverFor(i + 1);
    return runPage(page, markdown, ready, (s) => t.diagnostic(s));
  });
}
