// Gantry's image (Containerfile), built with Podman and run as an operator would: a first
// start writes its credentials into the volume, /healthz and the README tour's first curl answer
// from the host through a published port, and the container restarted (then replaced by a
// new one on the same volume) keeps the store. How the image is built without a registry:
// test/helpers/gantry-image.ts. The same image on PostgreSQL: container-image-postgres.image.test.ts.
// Skipped with the reason where podman, debootstrap or root are missing, never in CI.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildImage, cleanUp, containerName, credentialsInVolume, imageSkip, listening, podman, podmanRun, printed, readmeBalance, start, volumeName,
} from './helpers/gantry-image.ts';
import { deployCommands } from './helpers/doc-pages.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const skip = imageSkip;
after(cleanUp);

test('the image pins the Node the project pins, and Docker and Podman read the same ignore file', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  const containerfile = readFileSync(join(ROOT, 'Containerfile'), 'utf8');
  assert.equal(/^ARG NODE_VERSION=(\S+)$/m.exec(containerfile)?.[1], pkg.devDependencies.node,
    'Containerfile\'s NODE_VERSION default differs from package.json\'s devDependencies.node');
  assert.equal(readFileSync(join(ROOT, '.dockerignore'), 'utf8'), readFileSync(join(ROOT, '.containerignore'), 'utf8'),
    '.dockerignore (Docker) and .containerignore (Podman) must be the same file');
});

let built = false;

/** GET (or PUT: only gantry/sim-chat-small) the first key's model access policy. */
async function keyPolicy(url: string, creds: { apiKey: string; keyId: string }, method: 'GET' | 'PUT' = 'GET'): Promise<{ status: number; body: { policy?: { mode?: string } } }> {
  const res = await fetch(`${url}/openapi/v2/user/key/${creds.keyId}/model-access-policy`, {
    method, headers: { authorization: `Bearer ${creds.apiKey}`, 'content-type': 'application/json' },
    body: method === 'PUT' ? JSON.stringify({ mode: 'selected', allowedModels: [{ type: 'llm', id: 'gantry/sim-chat-small' }] }) : undefined,
  });
  return { status: res.status, body: await res.json() as { policy?: { mode?: string } } };
}

test('the image builds on a local Debian base, small enough', { skip: skip || undefined, timeout: 900_000 }, async (t) => {
  const { image: IMAGE, size, baseSize } = await buildImage((s) => t.diagnostic(s));
  // Node (~127 MB) and the production dependencies (~160 MB) over the base: a dev install is ~750 MB more
  assert.ok(size - baseSize < 400e6, `the image adds ${(size - baseSize) / 1e6} MB to its base`);
  const [image] = JSON.parse(await podman(['image', 'inspect', IMAGE])) as {
    Config: { User: string; Env: string[]; Volumes: Record<string, unknown> }; Healthcheck?: { Test: string[] } | null;
  }[];
  const { Config: config, Healthcheck: healthcheck } = image!;
  assert.equal(config.User, 'gantry');
  assert.ok(config.Env.includes('GANTRY_DATA_DIR=/var/lib/gantry') && config.Env.includes('HOST=0.0.0.0'), config.Env.join(' '));
  assert.deepEqual(Object.keys(config.Volumes), ['/var/lib/gantry']);
  assert.match(healthcheck?.Test.join(' ') ?? '', /\/healthz/, 'no HEALTHCHECK on /healthz (built without --format docker?)');
  // the production page's commands (its `deploy` blocks) fit this image: the build keeps the health check, the run publishes its port and mounts its volume
  const deploy = deployCommands(readFileSync(join(ROOT, 'docs', 'production.md'), 'utf8'));
  assert.match(deploy, /^podman build --format docker -t gantry \.\s/m, 'docs/production.md builds the image another way');
  const runLine = /^podman run -d .*$/m.exec(deploy)?.[0] ?? '';
  assert.match(runLine, / -p (\d+):8080 /, `docs/production.md's podman run does not publish 8080: ${runLine}`);
  assert.match(runLine, new RegExp(` -v [\\w-]+:${Object.keys(config.Volumes)[0]} `), `docs/production.md's podman run does not mount the image's volume: ${runLine}`);
  built = true;
});

test('embedded store: a first start writes its credentials into the volume, and they outlive the container', { skip: skip || undefined, timeout: 300_000 }, async () => {
  assert.ok(built, 'the image was not built');
  const volume = volumeName('data');
  const runArgs = ['--publish', '127.0.0.1::8080', '--volume', `${volume}:/var/lib/gantry`, '--env', 'GANTRY_SIM_TTFT_MS=0'];
  const first = await start(containerName('a'), runArgs);
  const logs = await first.logs();
  const creds = printed(logs);
  const saved = await credentialsInVolume(first.name);
  assert.equal(saved.apiKey, creds.apiKey, 'credentials.json in the volume holds another key than the one printed');
  assert.equal(saved.mode, '600 gantry');
  assert.equal(await podman(['exec', first.name, 'id', '-u']), '10001', 'the server runs as root');
  // the first start copied the template made at build time: the server's user can read it
  assert.equal((await podmanRun(['exec', first.name, 'sh', '-c', 'test -r /app/node_modules/.cache/gantry/pglite-*/PG_VERSION'])).code, 0,
    'the embedded database template is not readable by the server');

  const health = await fetch(`${first.url}/healthz`);
  assert.equal(health.status, 200);
  assert.equal((await podmanRun(['healthcheck', 'run', first.name])).code, 0, 'the image\'s HEALTHCHECK fails');
  assert.equal((await readmeBalance(first.url, creds.apiKey)).availableBalance, '1000000');
  // a change this store keeps: the key's model access narrowed to one model (as docs/tenant-api.md's examples do)
  assert.equal((await keyPolicy(first.url, creds, 'PUT')).status, 200);
  const policy = await keyPolicy(first.url, creds);
  assert.equal(policy.body.policy?.mode, 'selected', JSON.stringify(policy.body));

  await podman(['restart', '--time', '30', first.name], 90_000);
  const again = await listening(first.name, undefined, 2);
  assert.match((await again.logs()).split('Gantry listening on').at(-1)!, /Using the existing store; first-start credentials are in \/var\/lib\/gantry\/credentials\.json/);
  assert.equal((await readmeBalance(again.url, creds.apiKey)).availableBalance, '1000000');
  assert.deepEqual((await keyPolicy(again.url, creds)).body, policy.body, 'the restarted container lost the key\'s policy');

  // a new container (an upgrade) on the same volume
  await podman(['stop', '--time', '30', first.name], 60_000);
  const second = await start(containerName('b'), runArgs);
  assert.doesNotMatch(await second.logs(), /apiKey/, 'a second container on the volume made new credentials');
  assert.deepEqual((await keyPolicy(second.url, creds)).body, policy.body, 'a new container on the volume lost the key\'s policy');
  assert.equal((await credentialsInVolume(second.name)).adminToken, creds.adminToken);
});
