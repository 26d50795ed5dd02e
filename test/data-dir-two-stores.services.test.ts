// One checkout's data dir used by the embedded store, then by PostgreSQL (DATABASE_URL set,
// GANTRY_DATA_DIR the same): the first start on PostgreSQL saves its credentials in a file of
// its own and leaves the embedded store's credentials.json as it was; each store's CLI finds
// its own token, a rotation writes only its store's file. Needs TEST_DATABASE_URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { runGantry, startServer, type Server } from './helpers/server.ts';
import { escapeRegExp, modeOf, newTokenOf, readCreds, status, tempDir } from './helpers/data-dir.ts';

const pgUrl = process.env.TEST_DATABASE_URL;

test('PostgreSQL after the embedded store on one data dir: neither start destroys the other store\'s credentials', {
  skip: pgUrl ? false : 'needs TEST_DATABASE_URL', timeout: 240_000,
}, async (t) => {
  const name = `gantry_t_${randomBytes(6).toString('hex')}`; // named like the test clones: CI drops it if a run is killed
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  t.after(async () => {
    await admin.query(`drop database if exists ${name} with (force)`).finally(() => admin.end());
  });
  const url = new URL(pgUrl!);
  url.pathname = '/' + name;
  const databaseUrl = url.toString();
  const pgStore = `postgres://${url.hostname}:${url.port || '5432'}/${name}`;
  const ownName = `credentials-postgres-${url.hostname}-${url.port || '5432'}-${name}.json`;
  const servers: Server[] = [];
  t.after(async () => {
    for (const s of servers) await s.kill('SIGTERM');
  });
  const dataDir = tempDir(t);

  const embedded = await startServer({ GANTRY_DATA_DIR: dataDir });
  const embeddedCreds = readCreds(dataDir) as ReturnType<typeof readCreds> & { store?: string };
  assert.equal(embeddedCreds.store, 'embedded');
  await embedded.kill('SIGTERM');

  const onPg = await startServer({ DATABASE_URL: databaseUrl, GANTRY_DATA_DIR: dataDir });
  servers.push(onPg);
  assert.deepEqual(readCreds(dataDir), embeddedCreds, 'credentials.json is the embedded store\'s still');
  const ownPath = join(dataDir, ownName);
  const pgCreds = JSON.parse(readFileSync(ownPath, 'utf8'));
  assert.equal(pgCreds.store, pgStore);
  assert.notEqual(pgCreds.adminToken, embeddedCreds.adminToken);
  assert.equal(modeOf(ownPath), 0o600);
  assert.match(onPg.output(), new RegExp(`Saved to ${escapeRegExp(ownPath)} \\(mode 0600\\)\\.`));
  assert.match(onPg.output(), new RegExp(`${escapeRegExp(join(dataDir, 'credentials.json'))} holds the credentials of the embedded store in ${escapeRegExp(dataDir)} and was left as it is\\.`));
  assert.equal(await status(onPg, '/admin/v1/teams', pgCreds.adminToken), 200);

  // The CLI with the server's DATABASE_URL reads the PostgreSQL store's token.
  const cliEnv = { DATABASE_URL: databaseUrl, GANTRY_DATA_DIR: dataDir, GANTRY_URL: onPg.url };
  const listed = await runGantry(['admin', 'teams', 'list'], cliEnv, { timeoutMs: 60_000 });
  assert.equal(listed.code, 0, listed.output);
  // A rotation of the PostgreSQL store writes its own file only.
  const rotated = await runGantry(['admin', 'token', 'rotate'], { DATABASE_URL: databaseUrl, GANTRY_DATA_DIR: dataDir }, { timeoutMs: 60_000 });
  assert.equal(rotated.code, 0, rotated.output);
  assert.match(rotated.output, new RegExp(`Saved to ${escapeRegExp(ownPath)} `));
  assert.deepEqual(JSON.parse(readFileSync(ownPath, 'utf8')), { ...pgCreds, adminToken: newTokenOf(rotated.output) });
  assert.deepEqual(readCreds(dataDir), embeddedCreds);
  await onPg.kill('SIGTERM');

  // Back on the embedded store: its token works, and the start names its file.
  const again = await startServer({ GANTRY_DATA_DIR: dataDir });
  servers.push(again);
  assert.match(again.output(), new RegExp(`Using the existing store; first-start credentials are in ${escapeRegExp(join(dataDir, 'credentials.json'))}`));
  assert.equal(await status(again, '/admin/v1/teams', embeddedCreds.adminToken), 200);
});
