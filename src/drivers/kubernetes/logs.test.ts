// The kubernetes driver's logs(): the pod log read through the real @kubernetes/client-node
// against the fake API server (fake-apiserver.ts plays the container runtime: what the log
// holds is set by the test, in the `timestamps=true` shape). Not run against a live cluster.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { baseSpec } from '../contract.ts';
import { KubernetesDriver } from './driver.ts';
import { FakeApiServer } from './fake-apiserver.ts';
import { LOG_LIMIT_BYTES, objectName, podLogLines } from './manifests.ts';

const NS = 'gantry';
const api = new FakeApiServer();
let driver: KubernetesDriver;
before(async () => {
  await api.start();
  driver = new KubernetesDriver(api.coreApi(), NS);
});
after(() => api.close());

test('logs(): the pod\'s lines with their times, the first read as a tail, then only what came after the last line', async () => {
  const id = 'ins_logs1';
  assert.deepEqual(await driver.logs(id, 0, 100), [], 'no pod: no lines');
  await driver.create(baseSpec(id));
  api.podLogs.set(objectName(id), [
    '2026-01-02T03:04:05.123456789Z booting',
    '2026-01-02T03:04:05.5Z listening on :8080',
    '2026-01-02T03:04:06Z GET / 200',
  ].join('\n'));
  api.takeCalls();
  const first = await driver.logs(id, 0, 2);
  const call = new URL(api.takeCalls()[0]!.split(' ')[1]!, 'http://x');
  assert.equal(call.pathname, `/api/v1/namespaces/${NS}/pods/${objectName(id)}/log`);
  assert.deepEqual(Object.fromEntries(call.searchParams), { container: 'main', limitBytes: String(LOG_LIMIT_BYTES), tailLines: '2', timestamps: 'true' });
  assert.deepEqual(first, [
    { atMs: Date.parse('2026-01-02T03:04:05.500Z'), line: 'listening on :8080' },
    { atMs: Date.parse('2026-01-02T03:04:06.000Z'), line: 'GET / 200' },
  ]);
  const next = await driver.logs(id, Date.parse('2026-01-02T03:04:05.500Z'), 100);
  assert.deepEqual(next.map((l) => l.line), ['GET / 200']);
  const since = new URL(api.takeCalls()[0]!.split(' ')[1]!, 'http://x').searchParams;
  assert.ok(Number(since.get('sinceSeconds')) >= 1 && !since.has('tailLines'), String(since));
});

test('logs(): a container that has not started (400) has no lines; other failures are errors', async () => {
  const id = 'ins_logs2';
  await driver.create(baseSpec(id));
  api.failNext = { method: 'GET', pathIncludes: '/log', code: 400 };
  assert.deepEqual(await driver.logs(id, 0, 10), []);
  api.failNext = { method: 'GET', pathIncludes: '/log', code: 500 };
  await assert.rejects(driver.logs(id, 0, 10));
});

test('podLogLines: offsets, a line cut at limitBytes is left for the next read, rows without a time are skipped', () => {
  assert.deepEqual(podLogLines('2026-01-02T04:04:05.25+01:00 x\nno time here\n', 0, 10), [{ atMs: Date.parse('2026-01-02T03:04:05.250Z'), line: 'x' }]);
  const full = `2026-01-02T03:04:05Z a\n2026-01-02T03:04:06Z ${'b'.repeat(LOG_LIMIT_BYTES)}`;
  assert.deepEqual(podLogLines(full, 0, 10).map((l) => l.line), ['a']);
});
