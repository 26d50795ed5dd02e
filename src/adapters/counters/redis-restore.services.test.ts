// After Redis lost its data, a replica puts back what it holds: here a minute of a busy
// replica's rate entries (30,000: once ~25,000 made the one RESTORE call's spread arguments
// overflow the stack, and the restore, hence every admission, failed), in chunks.
// On a redis-server of the test's own, flushed to play the loss.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { RedisCounters } from './redis.ts';
import { startOwnRedis } from '../../../test/helpers/own-redis.ts';

const skip = !process.env.TEST_REDIS_URL && 'needs TEST_REDIS_URL (a machine with redis-server)';
const N = 30_000;

test('redis: a restore after a loss puts back tens of thousands of rate entries, in chunks, and the window counts them all', { skip, timeout: 120_000 }, async (t) => {
  const own = await startOwnRedis();
  t.after(() => own.stop());
  const now = 5_000_000;
  // a 2 s command deadline: what is tested is the restore, and on a loaded 2-core machine a reply
  // 250 ms late (the default) is CPU starvation of 200 concurrent admissions, not an outage
  // (a CI run beside engine tests failed here with 'no reply within 250 ms')
  const c = new RedisCounters({ url: own.url, nowMs: () => now, restoreGraceMs: 0, commandTimeoutMs: 2_000 });
  t.after(() => c.close());
  await c.start();
  const rate = (tokens: number) => ({ key: 'team-r:model', rpmLimit: null, tpmLimit: null, tokens, windowMs: 60_000 });
  const admit = (id: string) => c.admit({ requestId: id, nowMs: now, wallMs: Date.now(), rate: rate(1), scopes: [], costMicro: 0n, leaseUntilMs: Date.now() + 60_000, stateTtlMs: 60_000 });
  let next = 0;
  await Promise.all(Array.from({ length: 200 }, async () => {
    while (next < N) {
      const id = `r-${next++}`;
      assert.equal((await admit(id)).kind, 'ok');
      await c.settle({ requestId: id, rate: { key: 'team-r:model', tokensUsed: 2 }, scopes: [], actualMicro: 0n });
    }
  }));
  const redis = new Redis(own.url);
  t.after(() => redis.disconnect());
  assert.equal(await redis.zcard('gw:rz:team-r:model'), N);

  await redis.flushall(); // Redis lost everything
  const after = await admit('after-the-loss'); // finds the epoch gone, puts back what the replica holds, then admits
  assert.equal(after.kind, 'ok');
  assert.equal(after.kind === 'ok' && after.rate.requests, N + 1, 'the window counts every request of the minute, and this one');
  assert.equal(after.kind === 'ok' && after.rate.tokens, 2 * N + 1, 'with their settled token counts');
  assert.equal(await redis.zcard('gw:rz:team-r:model'), N + 1);
  assert.equal(c.restores, 1);
});
