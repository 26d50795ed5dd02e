// One contract for the serverless router's shared load: in memory always, Redis when
// TEST_REDIS_URL is set, where two instances stand for two replicas sharing one Redis.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { WorkerLoad } from '../../domain/serverless/load.ts';
import { MemoryLoad } from './memory.ts';
import { RedisLoad } from './redis.ts';

const uid = () => randomBytes(6).toString('hex');
const T0 = 1_800_000_000_000;

/** Two handles on one shared load (the same object in memory: one process). */
const impls: Array<{ name: string; pair: (opts?: { queueTtlMs?: number }) => [WorkerLoad, WorkerLoad] }> = [
  { name: 'memory', pair: () => { const m = new MemoryLoad(); return [m, m]; } },
];
if (process.env.TEST_REDIS_URL) {
  impls.push({
    name: 'redis',
    pair: (opts = {}) => {
      const prefix = `sltest:${uid()}:`;
      return [new RedisLoad({ url: process.env.TEST_REDIS_URL!, prefix, ...opts }), new RedisLoad({ url: process.env.TEST_REDIS_URL!, prefix, ...opts })];
    },
  });
}

for (const impl of impls) {
  test(`${impl.name}: a worker's slots hold across replicas, and an ended lease frees its slot`, async () => {
    const [a, b] = impl.pair();
    try {
      const w = uid();
      // 10 replicas' worth of concurrent takers on 2 handles: exactly max succeed
      const tries = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).tryAcquire(w, 3, 10_000, T0)));
      const got = tries.filter((t): t is string => t !== null);
      assert.equal(got.length, 3);
      assert.equal(new Set(got).size, 3, 'tokens are distinct');
      assert.deepEqual((await a.activity([w], T0)).get(w), { inflight: 3, lastBusyAtMs: T0 });
      await b.release(w, got[0]!, T0 + 5);
      assert.equal((await a.activity([w], T0 + 5)).get(w)!.inflight, 2);
      assert.equal((await a.activity([w], T0 + 5)).get(w)!.lastBusyAtMs, T0 + 5);
      assert.notEqual(await a.tryAcquire(w, 3, 10_000, T0 + 6), null);
      assert.equal(await b.tryAcquire(w, 3, 10_000, T0 + 7), null, 'full again');
      // the leases of a replica that died end: the slots come back
      assert.equal((await b.activity([w], T0 + 10_001)).get(w)!.inflight, 1, 'only the lease taken at T0+6 is left');
      assert.notEqual(await b.tryAcquire(w, 3, 10_000, T0 + 10_001), null);
      const none = (await a.activity([uid()], T0)).values().next().value;
      assert.deepEqual(none, { inflight: 0, lastBusyAtMs: 0 }, 'a worker never used');
    } finally {
      await a.close();
      if (b !== a) await b.close();
    }
  });

  test(`${impl.name}: the waiting requests of every replica are seen together, and a replica that stops reporting is forgotten`, async () => {
    const ttlMs = 300;
    const [a, b] = impl.pair({ queueTtlMs: ttlMs });
    try {
      const ep = uid();
      assert.deepEqual(await a.queue(ep, T0), { waiting: 0, oldestSinceMs: null });
      await a.reportQueue(ep, { waiting: 2, oldestSinceMs: T0 + 50 }, T0);
      if (a === b) {
        assert.deepEqual(await b.queue(ep, T0), { waiting: 2, oldestSinceMs: T0 + 50 });
        await a.reportQueue(ep, { waiting: 0, oldestSinceMs: null }, T0);
        assert.deepEqual(await b.queue(ep, T0), { waiting: 0, oldestSinceMs: null });
        return;
      }
      await b.reportQueue(ep, { waiting: 3, oldestSinceMs: T0 + 10 }, T0);
      const reportedAt = Date.now();
      assert.deepEqual(await a.queue(ep, T0), { waiting: 5, oldestSinceMs: T0 + 10 });
      // the reports are renewed while the queues are not empty: they outlive their TTL three
      // times over. That span is the scenario, not a wait for something to happen: the
      // reports are looked at all through it, every 50 ms, and each look must find both.
      for (let age = 0; age < 3 * ttlMs; age = Date.now() - reportedAt) {
        assert.equal((await a.queue(ep, T0)).waiting, 5, `a report was lost ${age} ms after it was made (TTL ${ttlMs} ms)`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await b.reportQueue(ep, { waiting: 0, oldestSinceMs: null }, T0);
      assert.deepEqual(await a.queue(ep, T0), { waiting: 2, oldestSinceMs: T0 + 50 });
      // replica a dies (stops renewing): its report expires
      await a.close();
      const deadline = Date.now() + 5000;
      while ((await b.queue(ep, T0)).waiting !== 0) {
        assert.ok(Date.now() < deadline, 'a dead replica\'s queue is forgotten within its TTL');
        await new Promise((r) => setTimeout(r, 25));
      }
    } finally {
      await a.close();
      if (b !== a) await b.close();
    }
  });
}
