// DATABASE_URL pointing where there is no PostgreSQL, or at a database that does not exist:
// `serve`, `migrate` and `admin token rotate` say in one line what is wrong and what to do,
// and exit 1 (not node-postgres' stack trace). The missing database needs the machine's
// PostgreSQL (TEST_DATABASE_URL; skipped without it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runGantry } from './helpers/server.ts';
import { freePort } from './helpers/own-redis.ts';

const pgUrl = process.env.TEST_DATABASE_URL;
const parent = mkdtempSync(join(tmpdir(), 'gantry-dburl-'));
test.after(() => rmSync(parent, { recursive: true, force: true }));

/** The refusal: one line on its own (the output holds nothing else), no stack frame. */
function oneLine(output: string): string {
  const lines = output.trim().split('\n');
  assert.equal(lines.length, 1, `more than one line:\n${output}`);
  assert.doesNotMatch(output, /^\s+at /m);
  return lines[0]!;
}

test('PostgreSQL not listening: one line naming the server and what to check, exit 1; the password is not shown', { timeout: 120_000 }, async () => {
  const port = await freePort(); // nothing listens there
  const env = { DATABASE_URL: `postgres://gantry:s3cret-pw@127.0.0.1:${port}/gantry`, GANTRY_DATA_DIR: join(parent, 'closed') };
  for (const args of [['serve'], ['migrate']]) {
    const { code, output } = await runGantry(args, env, { timeoutMs: 60_000 });
    assert.equal(code, 1, output);
    const line = oneLine(output);
    assert.equal(line, `gantry ${args[0]}: cannot connect to PostgreSQL at 127.0.0.1:${port} (DATABASE_URL, database "gantry"): connection refused. `
      + 'Is PostgreSQL running there, and does DATABASE_URL name the right host and port?');
  }
  const rotate = await runGantry(['admin', 'token', 'rotate'], env, { timeoutMs: 60_000 });
  assert.equal(rotate.code, 1, rotate.output);
  assert.match(oneLine(rotate.output), new RegExp(`^gantry admin token rotate: nothing was changed: cannot connect to PostgreSQL at 127\\.0\\.0\\.1:${port} .*connection refused`));
  assert.doesNotMatch(rotate.output, /s3cret/);
});

test('the database missing: one line saying to create it (createdb …), exit 1', { skip: pgUrl ? false : 'needs TEST_DATABASE_URL', timeout: 120_000 }, async () => {
  const url = new URL(pgUrl!);
  const name = `gantry_missing_${randomBytes(4).toString('hex')}`;
  url.pathname = `/${name}`;
  const user = decodeURIComponent(url.username) || 'postgres';
  const env = { DATABASE_URL: url.toString(), GANTRY_DATA_DIR: join(parent, 'missing') };
  for (const args of [['serve'], ['migrate']]) {
    const { code, output } = await runGantry(args, env, { timeoutMs: 60_000 });
    assert.equal(code, 1, output);
    assert.equal(oneLine(output), `gantry ${args[0]}: the database "${name}" does not exist on PostgreSQL at ${url.hostname}:${url.port || '5432'} (DATABASE_URL). `
      + `Create it (createdb -h ${url.hostname} -p ${url.port || '5432'} -U ${user} ${name}), or point DATABASE_URL at one that exists.`);
  }
});
