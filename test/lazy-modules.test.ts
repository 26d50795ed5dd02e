// Runs in a process of its own (test/runner): it asserts which modules a start loads, and other files would have loaded them.
// What an embedded default start does not need is not loaded by it (the API docs page, the
// Kubernetes client, the S3 SDK, undici, nodemailer, ssh2, stripe; bench/README.md "Start and idle memory"), and a
// configuration that needs one still gets it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { registerHooks } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// every module this process resolves from here on
const resolved = new Set<string>();
registerHooks({
  resolve(specifier, context, next) {
    resolved.add(specifier);
    return next(specifier, context);
  },
});
const { buildTestApp } = await import('./helpers/app.ts');
const LAZY = ['@scalar/fastify-api-reference', '@kubernetes/client-node', '@aws-sdk/client-s3', 'undici', 'nodemailer', 'ssh2', 'stripe'];

test('a default app loads none of the modules it uses only when configured or asked', async (t) => {
  const h = await buildTestApp();
  t.after(() => h.close());
  assert.equal((await h.app.inject({ url: '/healthz' })).statusCode, 200);
  assert.deepEqual(LAZY.filter((m) => resolved.has(m)), []);
});

test('the kubernetes driver and the S3 blob store are loaded when configured', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-lazy-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'x',
    clusters: [{ name: 'c', cluster: { server: 'http://127.0.0.1:9' } }],
    users: [{ name: 'u', user: { token: 't' } }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
  }));
  const h = await buildTestApp({
    env: { GANTRY_COMPUTE_DRIVER: 'kubernetes', KUBECONFIG: kubeconfig, GANTRY_S3_BUCKET: 'b', GANTRY_S3_ENDPOINT: 'http://127.0.0.1:9', GANTRY_S3_FORCE_PATH_STYLE: '1' },
  });
  t.after(() => h.close());
  assert.equal(h.services.compute.driver.constructor.name, 'KubernetesDriver');
  assert.equal(h.services.blobs.store.constructor.name, 'S3BlobStore');
  assert.ok(resolved.has('@kubernetes/client-node') && resolved.has('@aws-sdk/client-s3'));
});

test('ssh2 is loaded when the SSH endpoint listens', async (t) => {
  const h = await buildTestApp({ env: { GANTRY_SSH_LISTEN: '127.0.0.1:0' } });
  t.after(() => h.close());
  assert.ok(await h.services.ssh.listen());
  assert.ok(resolved.has('ssh2'));
});
