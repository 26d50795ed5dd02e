// Redis unreachable: model calls are refused within 100 ms with 503 naming Redis (never
// 500, never queued), /readyz says so while /healthz stays up, nothing is admitted later
// without its client, and serving resumes within a second of Redis coming back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertAlive, percentile, skipFaults, startCluster, teamWithKey } from './cluster.ts';

test('Redis down: 503 naming Redis within 100 ms, /readyz says so, serving again within 1 s of its return', { skip: skipFaults, timeout: 180_000 }, async () => {
  const c = await startCluster();
  try {
    const [a, b] = c.replicas;
    const t = await teamWithKey(c, 'redisdown', 1_000_000);
    const chat = { model: 'gantry/sim-chat-small', messages: [{ role: 'user', content: 'hi' }], max_tokens: 3 };
    const call = (s: typeof a) => c.api(s, t.apiKey, 'POST', '/openai/v1/chat/completions', chat);
    assert.equal((await call(a)).status, 200);
    assert.equal((await call(b)).status, 200);

    await c.redis.kill();
    // The replicas notice (first failing command or heartbeat) …
    for (const s of c.replicas) {
      const until = Date.now() + 5000;
      for (;;) {
        const r = await c.api(s, '', 'GET', '/readyz');
        if (r.status === 503) {
          assert.equal(r.body.reason, 'SERVICE_NOT_AVAILABLE');
          assert.equal(r.body.metadata.redis, 'down');
          assert.equal(r.body.metadata.database, 'up');
          break;
        }
        assert.ok(Date.now() < until, 'readyz never reported Redis down');
        await new Promise((res) => setImmediate(res));
      }
      assert.equal((await c.api(s, '', 'GET', '/healthz')).status, 200, 'liveness does not depend on Redis');
    }
    // … and every model call is refused at once.
    const refusals = [];
    for (let i = 0; i < 40; i++) refusals.push(await call(i % 2 ? b : a));
    for (const r of refusals) {
      assert.equal(r.status, 503, JSON.stringify(r.body));
      assert.equal(r.body.reason, 'SERVICE_NOT_AVAILABLE');
      assert.equal(r.body.metadata.dependency, 'redis');
      assert.match(r.body.message, /Redis/);
      assert.equal(r.body.error.type, 'server_error', 'OpenAI SDKs read it as a retryable server error');
    }
    const p99 = percentile(refusals.map((r) => r.ms), 99);
    assert.ok(p99 < 100, `p99 of the 503s is ${p99.toFixed(1)} ms`);
    // Management routes that do not need Redis keep working.
    assert.equal((await c.api(a, t.apiKey, 'GET', `/openapi/v1/user/team/key-budget-list?member_id=${t.ownerMemberId}`)).status, 200);

    await c.redis.start();
    const back = Date.now();
    let recoveredMs = -1;
    let answeredAfter = 0; // one replica may serve again a round before the other
    while (Date.now() - back < 10_000) {
      const [ra, rb] = await Promise.all([call(a), call(b)]);
      answeredAfter += [ra, rb].filter((r) => r.status === 200).length;
      if (ra.status === 200 && rb.status === 200) {
        recoveredMs = Date.now() - back;
        break;
      }
      await new Promise((res) => setTimeout(res, 20));
    }
    assert.ok(recoveredMs >= 0 && recoveredMs <= 1000, `serving again after ${recoveredMs} ms`);
    // Nothing refused was admitted later: the ledger holds exactly the two answered before and those answered after.
    const usage = await c.api(a, c.adminToken, 'GET', `/admin/v1/teams/${t.userId}/usage`);
    assert.equal(usage.status, 200, JSON.stringify(usage.body));
    assert.equal(usage.body.requests, 2 + answeredAfter, JSON.stringify(usage.body));
    process.stdout.write(`# redis down: 40 refusals, p99 ${p99.toFixed(1)} ms; serving again ${recoveredMs} ms after Redis returned\n`);
    assertAlive(c);
  } finally {
    await c.close();
  }
});
