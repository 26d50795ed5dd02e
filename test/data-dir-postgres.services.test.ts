// The data dir of a replica on PostgreSQL, through real `gantry` processes: the first start
// creates the data dir and saves its credentials before the token is committed, and a rotation
// reaches every running replica. Needs TEST_DATABASE_URL (CI's real-services pass).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { runGantry, startServer, type Server } from './helpers/server.ts';
import { modeOf, newTokenOf, readCreds, status, tempDir, waitFor } from './helpers/data-dir.ts';

const pgUrl = process.env.TEST_DATABASE_URL;

test('PostgreSQL: a first start creates the data dir before the token is committed; a rotation reaches every running replica', {
  skip: pgUrl ? false : 'needs TEST_DATABASE_URL', timeout: 240_000,
}, async (t) => {
  // A dedicated empty database (named like the test clones, so CI drops it if a run is killed).
  const name = `gantry_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(pgUrl!);
  url.pathname = '/' + name;
  const databaseUrl = url.toString();
  const servers: Server[] = [];
  try {
    const parent = tempDir(t);
    const dataDir = join(parent, 'fresh', 'data'); // not there yet, nor its parent
    servers.push(await startServer({ DATABASE_URL: databaseUrl, GANTRY_DATA_DIR: dataDir }));
    const creds = readCreds(dataDir);
    assert.match(creds.adminToken, /^gop_/);
    assert.equal(modeOf(dataDir), 0o700);
    assert.equal(modeOf(join(dataDir, 'credentials.json')), 0o600);
    servers.push(await startServer({ DATABASE_URL: databaseUrl, GANTRY_DATA_DIR: join(parent, 'replica') }));
    assert.match(servers[1]!.output(), /existing store/);
    for (const s of servers) assert.equal(await status(s, '/admin/v1/teams', creds.adminToken), 200);

    // The servers keep running: replicas share the database, there is no data dir lock.
    const rotated = await runGantry(['admin', 'token', 'rotate'], { DATABASE_URL: databaseUrl, GANTRY_DATA_DIR: dataDir }, { timeoutMs: 60_000 });
    assert.equal(rotated.code, 0, rotated.output);
    const rotatedAt = Date.now();
    const token = newTokenOf(rotated.output);
    assert.deepEqual(readCreds(dataDir), { ...creds, adminToken: token });
    for (const s of servers) {
      await waitFor('the old token refused', async () => (await status(s, '/admin/v1/teams', creds.adminToken)) === 401, 10_000);
      assert.equal(await status(s, '/admin/v1/teams', token), 200);
    }
    const tookMs = Date.now() - rotatedAt;
    assert.ok(tookMs < 3_000, `the old token was still accepted ${tookMs} ms after the rotation`);
  } finally {
    for (const s of servers) await s.kill('SIGTERM');
    await admin.query(`drop database if exists ${name} with (force)`).finally(() => admin.end());
  }
});
