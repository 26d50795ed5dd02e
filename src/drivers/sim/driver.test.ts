import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../lib/clock.ts';
import { SimDriver } from './driver.ts';
import { baseSpec, driverContract } from '../contract.ts';
import { HEARTBEAT_MS, MAX_HEARTBEATS } from './output.ts';

driverContract('sim', async () => {
  const clock = new ManualClock();
  const driver = new SimDriver(clock);
  return { driver, pass: async (ms) => clock.advance(ms), spec: (id) => baseSpec(id), patienceMs: 60_000, maxCallMs: 50 };
});

test('sim timings are realistic by default and scale with GANTRY_SIM_TIME_SCALE', async () => {
  const clock = new ManualClock();
  const d = new SimDriver(clock);
  await d.create(baseSpec('ins_a'));
  assert.equal((await d.describe('ins_a')).phase, 'creating');
  clock.advance(2000);
  assert.equal((await d.describe('ins_a')).phase, 'pulling');
  clock.advance(7999);
  assert.equal((await d.describe('ins_a')).phase, 'pulling');
  clock.advance(1);
  const o = await d.describe('ins_a');
  assert.equal(o.phase, 'running');
  assert.equal(o.startedAtMs, clock.nowMs());
  const fast = new SimDriver(clock, { timeScale: 100, timings: { pullMs: 50_000 } });
  assert.deepEqual(fast.timings, { createMs: 20, pullMs: 500, startMs: 30, stopMs: 20, deleteMs: 15 });
});

test('sim failure injection: no capacity at create, crash while running with its time', async () => {
  const clock = new ManualClock();
  const d = new SimDriver(clock);
  d.injectFailure('ins_b', 'insufficient_resource');
  await d.create(baseSpec('ins_b'));
  const b = await d.describe('ins_b');
  assert.equal(b.phase, 'failed');
  assert.equal(b.reason, 'insufficient_resource');
  await d.create(baseSpec('ins_c'));
  clock.advance(10_000);
  assert.equal((await d.describe('ins_c')).phase, 'running');
  clock.advance(5000);
  const crashAt = clock.nowMs();
  d.crash('ins_c');
  clock.advance(5000);
  const c = await d.describe('ins_c');
  assert.equal(c.phase, 'failed');
  assert.equal(c.reason, 'crashed');
  assert.equal(c.endedAtMs, crashAt);
});

test('sim output: a banner, the command, the ports, heartbeats at a slow rate and at most MAX_HEARTBEATS a run, how the run ended', async () => {
  const clock = new ManualClock();
  const d = new SimDriver(clock, { timeScale: 10 });
  await d.create({ ...baseSpec('ins_out'), command: 'python serve.py', ports: [{ port: 8080, type: 'http' }] });
  clock.advance(1300); // created, pulled, running
  const started = (await d.describe('ins_out')).startedAtMs!;
  const text = async (after = 0) => (await d.logs('ins_out', after, 10_000)).map((l) => l.line);
  assert.deepEqual(await text(), [
    '[sim] container ins_out started from busybox:1.36 (0 GPU, 1 CPU, 1 GB memory)', '$ python serve.py', 'listening on 0.0.0.0:8080 (http)',
  ]);
  clock.advance(HEARTBEAT_MS / 10);
  assert.match((await text()).at(-1)!, /^heartbeat 1: up 30 s, GPU utilization \d+%$/);
  assert.deepEqual(await d.logs('ins_out', 0, 10_000), await d.logs('ins_out', 0, 10_000), 'the same lines when read again');
  clock.advance(HEARTBEAT_MS * 1000); // idle for a long time: the heartbeats stop
  const all = await text();
  assert.equal(all.filter((l) => l.startsWith('heartbeat ')).length, MAX_HEARTBEATS);
  assert.match(all.at(-1)!, /no more heartbeats/);
  await d.stop('ins_out');
  const last = (await d.logs('ins_out', 0, 10_000)).at(-1)!;
  assert.deepEqual([last.line, last.atMs > started], ['received SIGTERM: shutting down', true]);
  assert.deepEqual(await text(last.atMs), []);
});

test('sim close: a running worker\'s server stops answering, none is started again, and close may be called twice', async () => {
  const clock = new ManualClock();
  const d = new SimDriver(clock);
  const health = { path: '/health', initialDelay: 0, period: 1, timeout: 1, successThreshold: 1, failureThreshold: 3 };
  await d.create({ ...baseSpec('wk-close'), worker: { endpointId: 'ep-close', health } });
  clock.advance(60_000);
  assert.equal((await d.describe('wk-close')).phase, 'running');
  const address = await d.address('wk-close');
  assert.ok(address, 'a running worker has an address');
  assert.equal((await fetch(`http://${address}/health`)).status, 200);
  await d.close();
  await assert.rejects(fetch(`http://${address}/health`), 'its server is closed');
  assert.equal((await d.describe('wk-close')).phase, 'running', 'the workload itself stays');
  assert.equal(await d.address('wk-close'), undefined, 'no server is started after close');
  await d.close();
});
