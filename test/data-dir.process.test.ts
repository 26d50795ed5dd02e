// The embedded data dir as an operator meets it, through real `gantry` processes: one process
// owns an embedded store (a second is refused, a killed owner's lock is taken over),
// everything in the data dir is the owner's alone, and a lost operator token is replaced with
// `gantry admin token rotate`. The PostgreSQL case: data-dir-postgres.services.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runGantry, startServer, type Server } from './helpers/server.ts';
import { escapeRegExp, modeOf, newTokenOf, readCreds, status, tempDir } from './helpers/data-dir.ts';

test('one process owns an embedded data dir: serve, migrate and token rotate are refused while it runs; a killed owner is taken over', { timeout: 240_000 }, async (t) => {
  const dataDir = tempDir(t);
  const env = { GANTRY_DATA_DIR: dataDir };
  const first = await startServer(env);
  t.after(() => first.kill('SIGKILL'));
  const creds = readCreds(dataDir);
  const pid = first.child.pid!;

  for (const args of [['serve'], ['migrate'], ['admin', 'token', 'rotate']]) {
    const { code, output } = await runGantry(args, env, { timeoutMs: 60_000 });
    assert.notEqual(code, 0, `gantry ${args.join(' ')} started beside a running server:\n${output}`);
    assert.match(output, new RegExp(escapeRegExp(dataDir)), 'the refusal names the data dir');
    assert.match(output, new RegExp(`pid ${pid}\\b`), 'and the process holding it');
    if (args[0] === 'admin') assert.match(output, /Stop the server, run this command again/);
  }
  assert.equal(await status(first, '/admin/v1/teams', creds.adminToken), 200, 'the first server keeps serving');
  assert.deepEqual(readCreds(dataDir), creds, 'a refused rotation changed nothing');

  await first.kill('SIGKILL');
  const next = await startServer(env);
  t.after(() => next.kill('SIGTERM'));
  assert.match(next.output(), new RegExp(`Took over ${escapeRegExp(dataDir)} from pid ${pid}\\b`));
  assert.equal(await status(next, '/admin/v1/teams', creds.adminToken), 200);
});

test('the data dir is 0700 and nothing under it is readable by group or others, whatever the umask', { timeout: 180_000 }, async (t) => {
  // An existing data dir from an older version: 0755, with a 0644 file.
  const dataDir = join(tempDir(t), 'data');
  mkdirSync(dataDir);
  chmodSync(dataDir, 0o755);
  writeFileSync(join(dataDir, 'notes.txt'), 'x');
  chmodSync(join(dataDir, 'notes.txt'), 0o644);
  const inherited = process.umask(0); // the server is started with the most permissive umask
  let server: Server;
  try {
    server = await startServer({ GANTRY_DATA_DIR: dataDir, GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '100000' });
  } finally {
    process.umask(inherited);
  }
  t.after(() => server.kill('SIGTERM'));
  const creds = readCreds(dataDir);
  for (let i = 0; i < 4; i++) {
    const res = await fetch(`${server.url}/openai/v1/chat/completions`, {
      method: 'POST', headers: { authorization: `Bearer ${creds.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gantry/sim-chat-small', messages: [{ role: 'user', content: `hi ${i}` }], max_tokens: 8, stream: i % 2 === 1 }),
    });
    assert.equal(res.status, 200, await res.text());
    await res.arrayBuffer().catch(() => {});
  }
  // The balance waits for journaled usage to reach the database: PGlite has written too.
  assert.equal(await status(server, '/openapi/v1/billing/balance/detail', creds.apiKey), 200);

  assert.equal(modeOf(dataDir), 0o700);
  for (const f of ['credentials.json', 'secret.key', 'gantry.lock', 'notes.txt']) assert.equal(modeOf(join(dataDir, f)), 0o600, f);
  const all = (readdirSync(dataDir, { recursive: true }) as string[]).map((p) => join(dataDir, p));
  assert.ok(all.some((p) => p.includes('usage-journal') && p.endsWith('.jsonl')), 'the usage journal is there');
  assert.ok(all.some((p) => p.endsWith('PG_VERSION')), "PGlite's files are there");
  assert.deepEqual(all.filter((p) => (modeOf(p) & 0o077) !== 0).map((p) => `${modeOf(p).toString(8)} ${p}`), []);
});

test('token rotate on the embedded store: with the server stopped; once started again, only the new token works', { timeout: 240_000 }, async (t) => {
  const dataDir = tempDir(t);
  const env = { GANTRY_DATA_DIR: dataDir };
  const empty = await runGantry(['admin', 'token', 'rotate'], env, { timeoutMs: 60_000 });
  assert.equal(empty.code, 1, empty.output);
  assert.match(empty.output, /there is no embedded store in/);
  assert.deepEqual(readdirSync(dataDir), [], 'no store is created by a rotation');

  const first = await startServer(env);
  const creds = readCreds(dataDir);
  await first.kill('SIGTERM');

  const rotated = await runGantry(['admin', 'token', 'rotate'], env, { timeoutMs: 60_000 });
  assert.equal(rotated.code, 0, rotated.output);
  const token = newTokenOf(rotated.output);
  assert.notEqual(token, creds.adminToken);
  assert.deepEqual(readCreds(dataDir), { ...creds, adminToken: token }, 'credentials.json holds the new token and keeps the rest');
  assert.equal(modeOf(join(dataDir, 'credentials.json')), 0o600);

  const server = await startServer(env);
  t.after(() => server.kill('SIGTERM'));
  assert.equal(await status(server, '/admin/v1/teams', token), 200);
  assert.equal(await status(server, '/admin/v1/teams', creds.adminToken), 401);
  // The HTTP commands of the CLI read the new token from credentials.json.
  const cli = await runGantry(['admin', 'teams', 'list'], { ...env, GANTRY_URL: server.url }, { timeoutMs: 60_000 });
  assert.equal(cli.code, 0, cli.output);
});
