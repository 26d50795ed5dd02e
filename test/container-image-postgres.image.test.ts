// Gantry's image on PostgreSQL, as deploy/kubernetes runs it: `gantry migrate` in a container
// of its own, then `gantry serve` on the same data dir, both with a read-only root; the
// machine's PostgreSQL (TEST_DATABASE_URL; a database of its own, dropped after) through the
// host's network. The services tier runs it (test/runner/tiers.ts: it reads TEST_DATABASE_URL); the image is the one
// test/container-image.image.test.ts built, from the build cache (test/helpers/gantry-image.ts).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import {
  buildImage, cleanUp, containerName, credentialsInVolume, freePort, imageSkip, IMAGE, listening, podman, readmeBalance, start, volumeName,
} from './helpers/gantry-image.ts';
import { until } from './helpers/wait.ts';

let database: { admin: string; name: string } | undefined;
after(async () => {
  await cleanUp();
  if (database) {
    const admin = new pg.Client({ connectionString: database.admin });
    await admin.connect();
    await admin.query(`drop database if exists ${database.name} with (force)`);
    await admin.end();
  }
});

const pgUrl = process.env.TEST_DATABASE_URL;

test('PostgreSQL: migrate, then serve, on the machine\'s database', { skip: imageSkip || (!pgUrl && 'TEST_DATABASE_URL is not set') || undefined, timeout: 900_000 }, async (t) => {
  await buildImage((s) => t.diagnostic(s));
  const name = `gantry_t_img_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  database = { admin: pgUrl!, name };
  const url = new URL(pgUrl!);
  url.pathname = `/${name}`;
  // the host's network: the database listens on the host's loopback
  const port = await freePort();
  const volume = volumeName('pg');
  // as deploy/kubernetes runs it: a read-only root, and `gantry migrate` before `serve` on the same data dir
  const runArgs = ['--network', 'host', '--read-only', '--tmpfs', '/tmp', '--volume', `${volume}:/var/lib/gantry`,
    '--env', `DATABASE_URL=${url}`, '--env', 'HOST=127.0.0.1', '--env', `PORT=${port}`];
  const migrated = await podman(['run', '--name', containerName('migrate'), ...runArgs, IMAGE, 'migrate'], 120_000);
  assert.match(migrated, /^migrated; first-start credentials written to \/var\/lib\/gantry\/credentials\.json$/m);
  const first = await start(containerName('pg'), runArgs, `http://127.0.0.1:${port}`);
  assert.match(await first.logs(), /Using the existing store; first-start credentials are in \/var\/lib\/gantry\/credentials\.json/);
  const creds = await credentialsInVolume(first.name);
  assert.equal(creds.mode, '600 gantry');
  const ready = await fetch(`${first.url}/readyz`);
  assert.equal(ready.status, 200, await ready.text());
  assert.equal((await readmeBalance(first.url, creds.apiKey)).availableBalance, '1000000');
  const check = new pg.Client({ connectionString: url.toString() });
  await check.connect();
  const { rows } = await check.query('select count(*)::int as n from api_keys');
  await check.end();
  assert.ok(rows[0].n >= 1, 'the first team\'s key is not in the PostgreSQL database');

  await podman(['restart', '--time', '30', first.name], 90_000);
  const again = await listening(first.name, first.url, 2);
  assert.match((await again.logs()).split('Gantry listening on').at(-1)!, /Using the existing store/);
  assert.equal((await readmeBalance(again.url, creds.apiKey)).availableBalance, '1000000');

  // a lost operator token: replaced from inside the running container (docs/production.md, Kubernetes)
  const asOperator = async (token: string) => (await fetch(`${again.url}/admin/v1/teams`, { headers: { authorization: `Bearer ${token}` } })).status;
  assert.equal(await asOperator(creds.adminToken), 200);
  const rotated = await podman(['exec', first.name, 'gantry', 'admin', 'token', 'rotate']);
  const token = /\b(gop_\S+)/.exec(rotated)?.[1];
  assert.ok(token && token !== creds.adminToken, `no new token printed:\n${rotated}`);
  await until('the new operator token is accepted and the old one refused', async () => await asOperator(token) === 200 && await asOperator(creds.adminToken) === 401);
});
