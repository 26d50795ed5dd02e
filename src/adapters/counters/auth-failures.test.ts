// The failed-authentication counters' contract, in process and on Redis (when TEST_REDIS_URL is
// set): fixed windows from a subject's first failure by the caller's clock, counts per subject,
// and on Redis a subject reaching its limit announced to every other instance (replica).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { AuthFailureCounter } from '../../domain/auth-throttle.ts';
import { MemoryAuthFailures } from './auth-failures.ts';
import { RedisAuthFailures } from './auth-failures-redis.ts';

const T0 = Date.UTC(2026, 10, 15, 12);
const W = 60_000;
const redisUrl = process.env.TEST_REDIS_URL;
const prefix = () => `aft:${randomBytes(6).toString('hex')}:`; // each test's keys of its own

const impls: { name: string; make: () => AuthFailureCounter }[] = [{ name: 'memory', make: () => new MemoryAuthFailures() }];
if (redisUrl) impls.push({ name: 'redis', make: () => new RedisAuthFailures({ url: redisUrl, prefix: prefix(), commandTimeoutMs: 2000 }) });

for (const impl of impls) {
  test(`${impl.name}: a window from the first failure, counted per subject, by the caller's clock`, async () => {
    const c = impl.make();
    try {
      assert.deepEqual(await c.hit(['a:x', 'p:y'], [3, 3], W, T0), [{ n: 1, untilMs: T0 + W }, { n: 1, untilMs: T0 + W }]);
      assert.deepEqual(await c.hit(['a:x'], [3], W, T0 + 1000), [{ n: 2, untilMs: T0 + W }]);
      assert.equal(await c.count('a:x', T0 + W - 1), 2);
      assert.equal(await c.count('p:y', T0 + W - 1), 1);
      assert.equal(await c.count('a:nobody', T0), 0);
      assert.equal(await c.count('a:x', T0 + W), 0, 'the window ended');
      assert.deepEqual(await c.hit(['a:x'], [3], W, T0 + W), [{ n: 1, untilMs: T0 + 2 * W }], 'a new window from this failure');
    } finally {
      await c.close();
    }
  });
}

test('redis: a subject reaching its limit is announced to the other replicas; every key expires', { skip: !redisUrl && 'needs TEST_REDIS_URL' }, async () => {
  const p = prefix();
  const a = new RedisAuthFailures({ url: redisUrl!, prefix: p, commandTimeoutMs: 2000 });
  const b = new RedisAuthFailures({ url: redisUrl!, prefix: p, commandTimeoutMs: 2000 });
  const r = new Redis(redisUrl!);
  try {
    const heard = new Promise<[string, number]>((resolve) => b.onLock((s, until) => resolve([s, until])));
    const until = Date.now() + 5_000;
    // b listens once its connection is up
    while (Number(((await r.pubsub('NUMSUB', `${p}locks`)) as [string, number])[1]) < 2) {
      assert.ok(Date.now() < until, 'the replicas never subscribed');
      await new Promise((res) => setImmediate(res));
    }
    const now = Date.now();
    assert.deepEqual((await a.hit(['a:z'], [2], W, now)).map((x) => x.n), [1]);
    assert.deepEqual((await a.hit(['a:z'], [2], W, now)).map((x) => x.n), [2]);
    assert.deepEqual(await heard, ['a:z', now + W]);
    assert.equal(await b.count('a:z', now), 2, 'the count is shared');
    const ttl = await r.pttl(`${p}a:z`);
    assert.ok(ttl > 0 && ttl <= W + 1000, `pttl ${ttl}`);
  } finally {
    await a.close();
    await b.close();
    r.disconnect();
  }
});
