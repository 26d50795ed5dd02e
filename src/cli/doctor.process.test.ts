// `gantry doctor` through the real process: on a fresh embedded configuration every check
// passes or says what to look at (exit 0); with the store, Redis, the bucket, the docker
// engine and the public URL all unreachable, a FAIL line for each that says what to set, no
// stack trace, exit 1; and against a running Gantry, each model upstream is asked: one that
// lists the model with the key passes, one that does not answer fails naming it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as netServer, type AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runGantry } from '../../test/helpers/server.ts';
import { buildTestApp } from '../../test/helpers/app.ts';
import { as } from '../../test/helpers/http.ts';

const dir = mkdtempSync(join(tmpdir(), 'gantry-doctor-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** A port nothing listens on: one the system gave and this process let go. */
async function closedPort(): Promise<number> {
  const s = netServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

const lines = (output: string) => output.trimEnd().split('\n');

test('a fresh embedded configuration: every check ok, to look at or skipped, exit 0', async () => {
  const { code, output } = await runGantry(['doctor'], { GANTRY_DATA_DIR: join(dir, 'fresh') });
  assert.equal(code, 0, output);
  const all = lines(output);
  assert.deepEqual(all.slice(0, -1).map((l) => l.split(/\s+/).slice(0, 2).join(' ')),
    ['ok store', 'ok redis', 'ok blob', 'ok compute', 'skip gpus', 'skip upstreams', 'warn public'], output);
  assert.match(all.at(-1)!, /^7 checks: 4 ok, 1 to look at, 0 failed, 2 skipped$/);
  assert.match(output, /warn {2}public URL {4}not set: .* set GANTRY_PUBLIC_URL to the address clients use/);
});

test('every dependency unreachable: a FAIL line for each saying what to set, no stack trace, exit 1', async () => {
  const port = await closedPort();
  const { code, output } = await runGantry(['doctor'], {
    GANTRY_DATA_DIR: join(dir, 'down'), DATABASE_URL: `postgres://gantry:secretpw@127.0.0.1:${port}/gantry`, REDIS_URL: `redis://127.0.0.1:${port}`,
    GANTRY_BLOB_STORE: 's3', GANTRY_S3_ENDPOINT: `http://127.0.0.1:${port}`, GANTRY_S3_BUCKET: 'b', GANTRY_S3_FORCE_PATH_STYLE: '1',
    GANTRY_S3_ACCESS_KEY_ID: 'a', GANTRY_S3_SECRET_ACCESS_KEY: 'b', GANTRY_COMPUTE_DRIVER: 'docker', GANTRY_DOCKER_HOST: `unix://${join(dir, 'no-engine.sock')}`,
    GANTRY_PUBLIC_URL: `https://127.0.0.1:${port}`,
  });
  assert.equal(code, 1, output);
  const byCheck = Object.fromEntries(lines(output).slice(0, -1).map((l) => [l.slice(6, 18).trim(), l]));
  assert.match(byCheck.store!, /^FAIL .*connection refused.*DATABASE_URL/);
  assert.match(byCheck.redis!, /^FAIL .*ECONNREFUSED.*start Redis or fix REDIS_URL/);
  assert.match(byCheck['blob store']!, /^FAIL .*ECONNREFUSED; check GANTRY_S3_ENDPOINT, GANTRY_S3_BUCKET and the access key/);
  assert.match(byCheck.compute!, /^FAIL .*the docker driver cannot reach its engine \(ENOENT\): .*GANTRY_DOCKER_HOST/);
  assert.match(byCheck['public URL']!, /^FAIL .*ECONNREFUSED/);
  assert.doesNotMatch(output, /secretpw/, 'no password is printed');
  assert.doesNotMatch(output, /\n\s+at /, 'no stack trace');
  // five at least: a machine with an NVIDIA driver and no toolkit fails the GPU check too
  assert.ok(Number(/(\d+) failed/.exec(lines(output).at(-1)!)?.[1]) >= 5, lines(output).at(-1));
});

test('a running Gantry\'s model upstreams: one that lists the model with the key passes, one that does not answer fails', async () => {
  const upstream: Server = createServer((req, res) => {
    const ok = req.headers.authorization === 'Bearer up-key';
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? { object: 'list', data: [{ id: 'served-model', object: 'model' }] } : { error: 'no' }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const t = await buildTestApp();
  try {
    const upUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
    const downUrl = `http://127.0.0.1:${await closedPort()}/v1`;
    const model = (id: string, upstreamSpec: unknown) => as(t.app, t.creds.adminToken).post('/admin/v1/models', {
      id, title: id, contextSize: 8192, inputTokenPricePerM: 100, outputTokenPricePerM: 200, status: 'available', upstream: upstreamSpec,
    });
    assert.equal((await model('acme/up', { url: upUrl, model: 'served-model', apiKeyEnv: 'UP_KEY' })).status, 200);
    assert.equal((await model('acme/down', { url: downUrl })).status, 200);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const { output } = await runGantry(['doctor'], { GANTRY_DATA_DIR: join(dir, 'up'), GANTRY_URL: url, GANTRY_ADMIN_TOKEN: t.creds.adminToken, UP_KEY: 'up-key' });
    assert.match(output, new RegExp(`ok {4}upstream acme/up {2}${upUrl.replace(/[/.]/g, '\\$&')} answers, accepts the key and lists served-model`));
    assert.match(output, /FAIL {2}upstream acme\/down {2}\S+ does not answer \(ECONNREFUSED\): start it, or fix the model's upstream\.url/);
    const wrongKey = await runGantry(['doctor'], { GANTRY_DATA_DIR: join(dir, 'up'), GANTRY_URL: url, GANTRY_ADMIN_TOKEN: t.creds.adminToken, UP_KEY: 'wrong' });
    assert.match(wrongKey.output, /FAIL {2}upstream acme\/up {2}\S+ refuses the key \(401\): fix UP_KEY/);
    const noKey = await runGantry(['doctor'], { GANTRY_DATA_DIR: join(dir, 'up'), GANTRY_URL: url, GANTRY_ADMIN_TOKEN: t.creds.adminToken });
    assert.match(noKey.output, /FAIL {2}upstream acme\/up {2}.*its key is read from UP_KEY, which is not set here/);
    assert.equal(noKey.code, 1);
  } finally {
    await t.close();
    await new Promise<void>((resolve) => upstream.close(() => resolve()));
  }
});
