// Redis hung (SIGSTOP: the connection stays open, nothing is answered): model calls are
// refused with 503 naming Redis once the command deadline passes, never queued behind it;
// no replica exits; serving resumes as soon as Redis answers again, and nothing refused is
// billed. This is the case the command deadline exists for (lib/deadline.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertAlive, skipFaults, startCluster, teamWithKey } from './cluster.ts';

test('Redis hung: 503 naming Redis after the command deadline, serving again once it answers, nothing refused billed', { skip: skipFaults, timeout: 180_000 }, async () => {
  const c = await startCluster();
  try {
    const [a, b] = c.replicas;
    const t = await teamWithKey(c, 'redishang', 1_000_000);
    const chat = { model: 'gantry/sim-chat-small', messages: [{ role: 'user', content: 'hi' }], max_tokens: 3 };
    const call = (s: typeof a) => c.api(s, t.apiKey, 'POST', '/openai/v1/chat/completions', chat);
    assert.equal((await call(a)).status, 200);
    assert.equal((await call(b)).status, 200);

    c.redis.pause();
    let resumed = false;
    let slowest = 0;
    try {
      const refusals = await Promise.all(Array.from({ length: 10 }, (_, i) => call(i % 2 ? b : a)));
      for (const r of refusals) {
        assert.equal(r.status, 503, JSON.stringify(r.body));
        assert.equal(r.body.reason, 'SERVICE_NOT_AVAILABLE');
        assert.equal(r.body.metadata.dependency, 'redis');
        // the deadline is 250 ms; a refusal never waits for Redis to come back
        assert.ok(r.ms < 3000, `a refusal took ${r.ms.toFixed(0)} ms`);
      }
      slowest = Math.max(...refusals.map((r) => r.ms));
      assert.equal((await c.api(a, '', 'GET', '/healthz')).status, 200, 'liveness does not depend on Redis');
      c.redis.resume();
      resumed = true;
    } finally {
      if (!resumed) c.redis.resume();
    }

    const back = Date.now();
    let recoveredMs = -1;
    let answeredAfter = 0;
    while (Date.now() - back < 10_000) {
      const [ra, rb] = await Promise.all([call(a), call(b)]);
      answeredAfter += [ra, rb].filter((r) => r.status === 200).length;
      for (const r of [ra, rb]) if (r.status !== 200) assert.equal(r.status, 503, JSON.stringify(r.body));
      if (ra.status === 200 && rb.status === 200) {
        recoveredMs = Date.now() - back;
        break;
      }
      await new Promise((res) => setTimeout(res, 20));
    }
    assert.ok(recoveredMs >= 0 && recoveredMs <= 2000, `serving again after ${recoveredMs} ms`);
    const usage = await c.api(a, c.adminToken, 'GET', `/admin/v1/teams/${t.userId}/usage`);
    assert.equal(usage.status, 200, JSON.stringify(usage.body));
    assert.equal(usage.body.requests, 2 + answeredAfter, 'only answered requests are recorded');
    assert.equal(usage.body.chargedRequests, 2 + answeredAfter, 'only answered requests are billed');
    process.stdout.write(`# redis hung: 10 refusals, slowest ${slowest.toFixed(0)} ms; serving again ${recoveredMs} ms after it answered\n`);
    assertAlive(c);
  } finally {
    await c.close();
  }
});
