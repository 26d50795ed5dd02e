// The README's examples work as written on a fresh start, each after the ones above it: every
// command of its ```sh blocks but those that start servers, install or run test suites (npm,
// an env-prefixed command, createdb, kind, kubectl, npx node --test) runs, in order, in one bash
// against a real server on a fresh data dir, and each must succeed (exit 0; curl with
// --fail-with-body, so a 4xx/5xx fails). Then its ```js blocks run with the pinned Node, in
// order, against the same server: a block that imports is a program, and a block without
// imports continues the program above it (in a block scope of its own, so it may reuse a name). What the test fills in: the server's
// address for http://127.0.0.1:8080, the first team's ids for the `usr_…` and `mem_…`
// placeholders, `npx gantry` as this checkout's bin/gantry.mjs (npx would resolve the same
// file from the project directory; here the working directory is the fresh data dir's parent).
// Blocks fenced ```sh on-a-gpu-server need a GPU server (the NVIDIA toolkit, a model served
// by vLLM) and are not run; any other word after ```sh is refused, so a typo cannot hide a block.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, type Server } from './helpers/server.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** ```sh blocks split into shell commands: continuation lines and multi-line quotes joined, comments dropped. */
export function shellCommands(markdown: string): string[] {
  const out: string[] = [];
  for (const m of markdown.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```/gm)) {
    let cmd = '';
    let quote: '"' | "'" | null = null;
    for (const line of m[1]!.split('\n')) {
      if (!cmd && !quote && (/^\s*#/.test(line) || !line.trim())) continue;
      let kept = '';
      let continued = false;
      for (let i = 0; i < line.length; i++) {
        const ch = line[i]!;
        if (quote) {
          if (ch === '\\' && quote === '"') {
            kept += ch + (line[i + 1] ?? '');
            i++;
            continue;
          }
          if (ch === quote) quote = null;
          kept += ch;
          continue;
        }
        if (ch === '#' && (i === 0 || /\s/.test(line[i - 1]!))) break; // a comment to the end of the line
        if (ch === '\\' && i === line.length - 1) {
          continued = true;
          break;
        }
        if (ch === '\\') {
          kept += ch + (line[i + 1] ?? '');
          i++;
          continue;
        }
        if (ch === '"' || ch === "'") quote = ch;
        kept += ch;
      }
      cmd += kept + (quote ? '\n' : continued ? ' ' : '');
      if (!quote && !continued) {
        if (cmd.trim()) out.push(cmd.trim());
        cmd = '';
      }
    }
    assert.equal(quote, null, `unterminated quote in a README block: ${cmd}`);
  }
  return out;
}

/** The command's words after any leading `NAME=value` assignments, and how many of those there were. */
function splitWords(cmd: string): { words: string[]; assignments: number } {
  const words: string[] = [];
  let cur = '';
  let quote: string | null = null;
  let depth = 0;
  for (const ch of cmd) {
    if (quote) {
      if (ch === quote) quote = null;
      cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      cur += ch;
    } else if (ch === '(') {
      depth++;
      cur += ch;
    } else if (ch === ')') {
      depth--;
      cur += ch;
    } else if (/\s/.test(ch) && depth === 0) {
      if (cur) words.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur) words.push(cur);
  let assignments = 0;
  while (assignments < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[assignments]!)) assignments++;
  return { words: words.slice(assignments), assignments };
}

/** Commands that set up a machine or run the test suites, not examples of the running service. */
const NOT_EXAMPLES = new Set(['npm', 'createdb', 'kind', 'kubectl']);

function runnable(cmd: string): boolean {
  const { words, assignments } = splitWords(cmd);
  if (words.length === 0) return true; // KEY=$(…), B=…: the examples read them
  if (assignments > 0) return false; // env-prefixed: servers and test runs, not examples
  const [w0, w1, w2] = words;
  if (NOT_EXAMPLES.has(w0!)) return false;
  if (w0 === 'npx' && w1 === 'node' && w2 === '--test') return false;
  return true; // curl, gantry admin, and the set-up they need (mkdir, printf, export)
}

/** The ```js blocks as programs: a block that imports starts one; a block without imports continues the one above, in a scope of its own. */
export function jsPrograms(markdown: string): string[] {
  const programs: string[] = [];
  for (const m of markdown.matchAll(/^```js\n([\s\S]*?)^```/gm)) {
    const code = m[1]!;
    if (/^import /m.test(code)) programs.push(code);
    else {
      assert.ok(programs.length > 0, `a js block without imports continues no program:\n${code}`);
      programs[programs.length - 1] += `{\n${code}}\n`;
    }
  }
  return programs;
}

let server: Server | undefined;
const dir = mkdtempSync(join(tmpdir(), 'gantry-readme-'));
after(async () => {
  await server?.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

test('the README\'s sh blocks are read as commands (quotes, continuations and comments)', () => {
  assert.deepEqual(shellCommands([
    '```sh', '# a comment with an apostrophe\'s', 'A=$(node -p "require(\'./x\').y")', 'curl -s $B/x \\', '  -d \'{"a":1}\'   # trailing',
    'npx gantry admin models set --json \'{"id":"m",', '  "title":"T"}\'', 'npm start', '```', '```json', '{"not": "sh"}', '```',
  ].join('\n')), ['A=$(node -p "require(\'./x\').y")', 'curl -s $B/x    -d \'{"a":1}\'', 'npx gantry admin models set --json \'{"id":"m",\n  "title":"T"}\'', 'npm start']);
  assert.equal(runnable('DATABASE_URL=postgres://x REDIS_URL=redis://y PORT=8080 npm start'), false);
  assert.equal(runnable('KEY=$(node -p "require(\'./data/credentials.json\').apiKey")'), true);
  assert.equal(runnable('B=http://127.0.0.1:8080'), true);
  assert.equal(runnable('mkdir -p models/vae && printf x > models/vae/a.safetensors'), true);
  assert.equal(runnable('npx node --test src/drivers/docker/driver.engines.test.ts'), false);
  assert.equal(runnable('createdb -h 127.0.0.1 -U postgres gantry'), false);
  assert.deepEqual(jsPrograms(['```js', "import a from 'a';", 'const x = 1;', '```', 'text', '```js', 'const x = 2;', '```', '```js', "import b from 'b';", '```'].join('\n')),
    ["import a from 'a';\nconst x = 1;\n{\nconst x = 2;\n}\n", "import b from 'b';\n"]);
});

/** The fences of shell blocks: bare (run by the test below) or marked as needing a GPU server. */
const SHELL_FENCE = /^```(sh|bash|shell)([^\n]*)$/gm;

test('shell blocks are run, or marked as needing a GPU server', () => {
  for (const m of README.matchAll(SHELL_FENCE)) {
    // deploy: builds and starts Gantry's own image (README, "Deploy Gantry itself"); test/container-image.image.test.ts runs the image
    assert.ok(m[2] === '' || m[2] === ' on-a-gpu-server' || m[2] === ' deploy', `unknown shell fence "${m[0]}": bare, or "${m[1]} on-a-gpu-server" or "${m[1]} deploy" (not run)`);
  }
});

test('every shell and JavaScript example of the README succeeds against a fresh Gantry', { timeout: 240_000 }, async () => {
  const commands = shellCommands(README).filter(runnable);
  const admin = commands.filter((c) => /^(npx )?gantry admin/.test(c));
  const curls = commands.filter((c) => /(^|\$\()curl /.test(c));
  assert.ok(admin.length >= 12 && curls.length >= 12, `found ${admin.length} admin and ${curls.length} curl commands: has the README's layout changed?`);

  server = await startServer({ GANTRY_DATA_DIR: join(dir, 'data'), GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '100000' });
  const creds = JSON.parse(readFileSync(join(dir, 'data', 'credentials.json'), 'utf8')) as { userId: string; ownerMemberId: string };
  const filled = commands.map((c) => c
    .replaceAll('http://127.0.0.1:8080', server!.url)
    .replaceAll('usr_…', creds.userId)
    .replaceAll('mem_…', creds.ownerMemberId));
  for (const c of filled) assert.doesNotMatch(c, /…|<[a-zA-Z]+>/, `a placeholder the test cannot fill: ${c}`);

  const script = [
    'set -o pipefail',
    'npx() { if [ "$1" = gantry ]; then shift; "$GANTRY_NODE" "$GANTRY_BIN" "$@"; else echo "npx $1: not a README example" >&2; return 127; fi; }',
    'gantry() { "$GANTRY_NODE" "$GANTRY_BIN" "$@"; }',
    'curl() { command curl --fail-with-body --silent --show-error --max-time 20 "$@"; }',
    // curl's answers end without a newline: the marker starts a line of its own
    ...filled.flatMap((c, i) => [c, `rc=$?; printf '\\n@@step ${i} rc=%s\\n' "$rc"`]),
  ].join('\n');
  const { out, code } = await new Promise<{ out: string; code: number | null }>((resolve) => {
    const child = spawn('bash', ['-c', script], {
      cwd: dir,
      env: {
        PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, HOME: dir,
        GANTRY_URL: server!.url, GANTRY_NODE: process.execPath, GANTRY_BIN: join(ROOT, 'bin', 'gantry.mjs'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.once('exit', (c) => {
      clearTimeout(timer);
      resolve({ out: text, code: c });
    });
  });
  assert.equal(code, 0, out.slice(-4000));
  // each step's output is what came after the previous marker
  const parts = out.split(/^@@step (\d+) rc=(\d+)$/m);
  const seen: number[] = [];
  for (let i = 1; i < parts.length; i += 3) {
    const step = Number(parts[i]);
    const rc = Number(parts[i + 1]);
    seen.push(step);
    assert.equal(rc, 0, `README command failed (exit ${rc}):\n${filled[step]}\n--- output ---\n${parts[i - 1]!.slice(-2000)}`);
  }
  assert.deepEqual(seen, filled.map((_, i) => i), `not every command ran:\n${out.slice(-2000)}`);

  // the JavaScript examples, in the same directory (./data/credentials.json), with the
  // project's packages (openai, @anthropic-ai/sdk) found through a node_modules link
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const programs = jsPrograms(README);
  assert.ok(programs.length >= 4, `found ${programs.length} js programs: has the README's layout changed?`);
  for (const [i, program] of programs.entries()) {
    const file = join(dir, `readme-${i}.mjs`);
    writeFileSync(file, program.replaceAll('http://127.0.0.1:8080', server.url));
    const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, [file], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.on('data', (d) => (text += d));
      child.stderr.on('data', (d) => (text += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.once('exit', (c) => {
        clearTimeout(timer);
        resolve({ code: c, out: text });
      });
    });
    assert.equal(r.code, 0, `README js example failed (exit ${r.code}):\n${program}\n--- output ---\n${r.out.slice(-3000)}`);
  }
});
