// compose.yaml, as the compose tool itself reads it: Debian's docker-compose validates it
// against the Compose schema and resolves it (`config`), and the resolved file must be the
// deployment docs/production.md promises: two Gantry replicas from the Containerfile behind one
// published port (the proxy's, whose upstreams are those replicas), background jobs on
// exactly one, every replica on the same PostgreSQL, Redis, bucket and secret key, settings
// that src/config.ts reads, and secrets only from the operator's .env (the file refuses to
// resolve without them). Skipped where docker-compose is absent, never in CI
// (GANTRY_TEST_REQUIRE_ENGINES=1; .ci/run installs it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadYaml } from '@kubernetes/client-node';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TOOL = ['/usr/bin/docker-compose', '/usr/local/bin/docker-compose'].find((p) => existsSync(p));
const skip = process.env.GANTRY_TEST_REQUIRE_ENGINES === '1' ? false
  : TOOL ? false : 'docker-compose not installed (apt-get install docker-compose)';

const SECRETS = { POSTGRES_PASSWORD: 'pg-secret-1', MINIO_ROOT_PASSWORD: 'minio-secret-2', GANTRY_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') };

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  environment?: Record<string, string>;
  ports?: unknown[];
  depends_on?: Record<string, { condition: string }>;
  volumes?: string[];
  healthcheck?: { test?: unknown };
}
interface Resolved { services: Record<string, Service>; volumes?: Record<string, unknown> }

/** `docker-compose config` of compose.yaml with `env` (and nothing of the caller's environment that compose reads). */
function composeConfig(env: Record<string, string>): { code: number | null; out: string; err: string } {
  const clean: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  const r = spawnSync(TOOL ?? 'docker-compose', ['--project-directory', ROOT, '-f', join(ROOT, 'compose.yaml'), 'config'], {
    env: { ...clean, ...env }, encoding: 'utf8', cwd: ROOT,
  });
  return { code: r.status, out: r.stdout ?? '', err: `${r.stderr ?? ''}${r.error?.message ?? ''}` };
}

function resolved(): Resolved {
  const r = composeConfig(SECRETS);
  assert.equal(r.code, 0, `docker-compose config refused compose.yaml:\n${r.err}`);
  return loadYaml<Resolved>(r.out);
}

const gantries = (c: Resolved) => Object.entries(c.services).filter(([, s]) => s.build?.dockerfile === 'Containerfile');

test('compose.yaml: valid for the compose tool, two replicas of the image behind one port, jobs on one', { skip }, () => {
  const c = resolved();
  const replicas = gantries(c);
  assert.ok(replicas.length >= 2, `replicas built from the Containerfile: ${replicas.map(([n]) => n).join(', ')}`);
  for (const [name, s] of replicas) assert.equal(s.build!.context, ROOT.replace(/\/$/, ''), `${name} is not built from this checkout`);
  assert.equal(new Set(replicas.map(([, s]) => s.image)).size, 1, 'the replicas run different images');

  const runJobs = replicas.filter(([, s]) => !['0', 'false', 'no', 'off'].includes(String(s.environment?.GANTRY_RUN_JOBS ?? '1').toLowerCase()));
  assert.deepEqual(runJobs.map(([n]) => n).length, 1, `background jobs run on ${runJobs.map(([n]) => n).join(', ') || 'no replica'}`);

  const published = Object.entries(c.services).filter(([, s]) => s.ports?.length);
  assert.deepEqual(published.map(([n]) => n), ['proxy'], 'only the proxy publishes a port');
  assert.equal(published[0]![1].ports!.length, 1, 'the proxy publishes one port');
  // the proxy's upstreams are exactly the replicas (on the port the image listens on)
  const nginx = readFileSync(join(ROOT, 'deploy/compose/nginx.conf'), 'utf8');
  const upstreams = [...nginx.matchAll(/^\s*server\s+([\w-]+):(\d+)/gm)].map((m) => `${m[1]}:${m[2]}`).sort();
  assert.deepEqual(upstreams, replicas.map(([n]) => `${n}:8080`).sort());
  assert.ok(c.services.proxy!.volumes?.some((v) => v.includes('deploy/compose/nginx.conf')), 'the proxy does not mount deploy/compose/nginx.conf');
  for (const [name, s] of replicas) {
    assert.equal(c.services.proxy!.depends_on?.[name]?.condition, 'service_healthy', `the proxy does not wait for ${name}`);
    // the proxy waits on it: said in the file, as an OCI-format image carries no HEALTHCHECK
    assert.match(JSON.stringify(s.healthcheck?.test ?? ''), /127\.0\.0\.1:8080\/healthz/, `${name} has no health check on /healthz`);
  }
});

test('compose.yaml: every replica on the same PostgreSQL, Redis, bucket and secret key, with settings Gantry reads', { skip }, () => {
  const c = resolved();
  const replicas = gantries(c);
  const configTs = readFileSync(join(ROOT, 'src/config.ts'), 'utf8') + readFileSync(join(ROOT, 'src/cli/commands.ts'), 'utf8');
  const shared = ['DATABASE_URL', 'REDIS_URL', 'GANTRY_SECRET_KEY', 'GANTRY_S3_ENDPOINT', 'GANTRY_S3_BUCKET', 'GANTRY_S3_ACCESS_KEY_ID', 'GANTRY_S3_SECRET_ACCESS_KEY', 'GANTRY_PUBLIC_URL'];
  for (const [name, s] of replicas) {
    const env = s.environment ?? {};
    for (const k of Object.keys(env)) assert.ok(configTs.includes(`'${k}'`) || configTs.includes(`env.${k}`), `${name}: ${k} is no setting of src/config.ts`);
    for (const [k, v] of Object.entries(env)) assert.doesNotMatch(v, /\$/, `${name}: ${k} was not resolved: ${v}`);
    for (const k of shared) assert.equal(env[k], replicas[0]![1].environment?.[k], `${name}: ${k} differs between replicas`);
    assert.match(env.DATABASE_URL ?? '', /^postgres:\/\/[^@]+@postgres:5432\//);
    assert.match(env.REDIS_URL ?? '', /^redis:\/\/redis:6379/);
    assert.equal(env.GANTRY_BLOB_STORE, 's3', `${name}: replicas need a shared blob store`);
    assert.equal(env.GANTRY_S3_ENDPOINT, 'http://minio:9000');
    assert.equal(env.GANTRY_SECRET_KEY, SECRETS.GANTRY_SECRET_KEY);
    for (const dep of ['postgres', 'redis']) assert.equal(s.depends_on?.[dep]?.condition, 'service_healthy', `${name} does not wait for ${dep}`);
    assert.equal(s.depends_on?.bucket?.condition, 'service_completed_successfully', `${name} does not wait for its bucket`);
  }
  assert.equal(c.services.postgres?.environment?.POSTGRES_PASSWORD, SECRETS.POSTGRES_PASSWORD);
  assert.match(replicas[0]![1].environment!.DATABASE_URL!, new RegExp(`:${SECRETS.POSTGRES_PASSWORD}@`));
  assert.equal(c.services.minio?.environment?.MINIO_ROOT_PASSWORD, SECRETS.MINIO_ROOT_PASSWORD);
  assert.equal(replicas[0]![1].environment!.GANTRY_S3_SECRET_ACCESS_KEY, SECRETS.MINIO_ROOT_PASSWORD);
  const bucket = c.services.bucket?.environment?.GANTRY_S3_BUCKET ?? replicas[0]![1].environment!.GANTRY_S3_BUCKET;
  assert.match(JSON.stringify(c.services.bucket), new RegExp(`mc mb --ignore-existing local/${bucket}\\b`), 'the bucket service makes another bucket than the replicas use');
});

test('compose.yaml: no secret has a default; each missing one is named', { skip }, () => {
  for (const missing of Object.keys(SECRETS)) {
    const env: Record<string, string> = { ...SECRETS };
    delete env[missing];
    const r = composeConfig(env);
    assert.notEqual(r.code, 0, `compose.yaml resolved without ${missing}`);
    assert.match(r.err, new RegExp(`set ${missing}`), r.err);
  }
});
