// The autoscaler's rules, as pure decisions (no database, no driver).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decide, type ScaleInput, type ScaleWorker } from './autoscaler.ts';

const NOW = 1_000_000;

function worker(id: string, over: Partial<ScaleWorker> = {}): ScaleWorker {
  return { id, state: 'running', specVersion: 1, healthy: true, draining: false, stateSinceMs: NOW - 10_000, inflight: 0, lastBusyAtMs: NOW, ...over };
}

function input(over: Partial<ScaleInput> = {}): ScaleInput {
  return {
    nowMs: NOW, endpointState: 'serving', specVersion: 1, minNum: 1, maxNum: 5, freeTimeout: 60, maxConcurrent: 1,
    policy: { type: 'concurrency', value: 2 }, workers: [worker('a', { inflight: 1 })], waiting: 0, oldestWaitingSinceMs: null, ...over,
  };
}

test('concurrency policy: scale out only while more than `value` requests wait, to what they need, at most maxNum', () => {
  assert.equal(decide(input({ waiting: 2 })).create, 0, 'exactly value waiting: no scale out');
  const d = decide(input({ waiting: 3 }));
  assert.equal(d.create, 3, '1 in flight + 3 waiting at 1 per worker need 4 workers');
  assert.deepEqual(d.reasons, ['scale out 1→4: 3 waiting > 2']);
  assert.equal(decide(input({ waiting: 50 })).desired, 5, 'never above maxNum');
});

test('queue policy: scale out when the oldest request waited longer than `value` seconds', () => {
  const policy = { type: 'queue' as const, value: 4 };
  assert.equal(decide(input({ policy, waiting: 1, oldestWaitingSinceMs: NOW - 4000 })).create, 0);
  const d = decide(input({ policy, waiting: 1, oldestWaitingSinceMs: NOW - 4100 }));
  assert.equal(d.create, 1);
  assert.match(d.reasons[0]!, /^scale out 1→2: oldest request waited 4\.1 s > 4 s$/);
});

test('workers still booting count as capacity: no second scale out while one is on its way', () => {
  const booting = [worker('a', { inflight: 1 }), worker('b', { state: 'pulling', healthy: false })];
  assert.equal(decide(input({ workers: booting, waiting: 3, policy: { type: 'concurrency', value: 0 } })).create, 2, 'need 4: two more than the two there');
  assert.equal(decide(input({ workers: booting, waiting: 1, policy: { type: 'concurrency', value: 0 } })).create, 0, 'need 2: the booting one covers it');
});

test('scale from zero: a waiting request starts a worker whatever the policy says', () => {
  const d = decide(input({ minNum: 0, workers: [], waiting: 1, policy: { type: 'queue', value: 100 }, oldestWaitingSinceMs: NOW }));
  assert.equal(d.create, 1);
  assert.deepEqual(d.reasons, ['scale out 0→1: 1 waiting and no worker']);
});

test('scale in: workers idle for freeTimeout drain, longest idle first, never below minNum', () => {
  const workers = [
    worker('a', { lastBusyAtMs: NOW - 70_000, stateSinceMs: NOW - 100_000 }),
    worker('b', { lastBusyAtMs: NOW - 90_000, stateSinceMs: NOW - 100_000 }),
    worker('c', { lastBusyAtMs: NOW - 59_000 }),
  ];
  const d = decide(input({ workers, minNum: 1 }));
  assert.deepEqual(d.drain, ['b', 'a']);
  assert.equal(d.desired, 1);
  assert.deepEqual(decide(input({ workers, minNum: 2 })).drain, ['b'], 'minNum 2 keeps two');
  assert.deepEqual(decide(input({ workers, waiting: 1 })).drain, [], 'nothing drains while requests wait');
  assert.deepEqual(decide(input({ workers: [worker('x', { lastBusyAtMs: 0, stateSinceMs: NOW - 30_000 })], minNum: 0 })).drain, [],
    'a worker that never served counts idle from when it started running');
});

test('minNum: the endpoint is brought up to it', () => {
  const d = decide(input({ minNum: 3, workers: [worker('a')] }));
  assert.equal(d.create, 2);
  assert.deepEqual(d.reasons, ['scale out 1→3: minNum is 3']);
});

test('rolling update: new workers first; an old one drains for each new one serving; old ones not serving stop at once', () => {
  const old = [worker('o1', { specVersion: 1 }), worker('o2', { specVersion: 1 }), worker('o3', { specVersion: 1, state: 'creating', healthy: false })];
  const first = decide(input({ specVersion: 2, minNum: 2, workers: old }));
  assert.equal(first.create, 2, 'two new ones for the two serving');
  assert.deepEqual(first.drain, [], 'no old one drains before a new one serves');
  assert.deepEqual(first.stop, ['o3']);
  const booting = [...old.slice(0, 2), worker('n1', { specVersion: 2, state: 'starting', healthy: false }), worker('n2', { specVersion: 2, state: 'pulling', healthy: false })];
  assert.equal(decide(input({ specVersion: 2, minNum: 2, workers: booting })).create, 0, 'no surge beyond the replacements');
  const oneUp = [...old.slice(0, 2), worker('n1', { specVersion: 2 }), worker('n2', { specVersion: 2, state: 'starting', healthy: false })];
  assert.deepEqual(decide(input({ specVersion: 2, minNum: 2, workers: oneUp })).drain, ['o1']);
});

test('stopped, failed and terminating endpoints stop every worker', () => {
  for (const endpointState of ['stopped', 'failed', 'terminating']) {
    const d = decide(input({ endpointState, workers: [worker('a'), worker('b', { state: 'pending' })], waiting: 5 }));
    assert.deepEqual({ create: d.create, stop: d.stop, desired: d.desired }, { create: 0, stop: ['a', 'b'], desired: 0 }, endpointState);
  }
});
