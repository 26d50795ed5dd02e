import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../lib/clock.ts';
import { SimDriver } from './sim.ts';
import { baseSpec, driverContract } from './contract.ts';

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
