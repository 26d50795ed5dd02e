// Two installations on one Redis (GANTRY_REDIS_PREFIX): neither sees the other's state, and
// every key and channel either writes is under its own prefix. On a redis-server of the test's
// own, so the whole keyspace can be read. Needs TEST_REDIS_URL (CI's real-services pass, on a
// machine with redis-server).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { as } from './helpers/http.ts';
import { startOwnRedis } from './helpers/own-redis.ts';
import { RedisLoad } from '../src/adapters/serverless-load/redis.ts';
import { RedisAuthFailures } from '../src/adapters/counters/auth-failures-redis.ts';
import { loadConfig } from '../src/config.ts';

const skip = !process.env.TEST_REDIS_URL && 'needs TEST_REDIS_URL (a machine with redis-server)';

async function allKeys(redis: Redis): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}

test('GANTRY_REDIS_PREFIX: default none (the keys of earlier versions); anything printable without spaces', () => {
  assert.equal(loadConfig({}).redisPrefix, '');
  assert.equal(loadConfig({ GANTRY_REDIS_PREFIX: 'gantry-prod:' }).redisPrefix, 'gantry-prod:');
  assert.throws(() => loadConfig({ GANTRY_REDIS_PREFIX: 'a b' }), /GANTRY_REDIS_PREFIX/);
});

test('two installations with different GANTRY_REDIS_PREFIX share a Redis without seeing each other\'s state', { skip, timeout: 120_000 }, async (t) => {
  const own = await startOwnRedis();
  t.after(() => own.stop());
  const redis = new Redis(own.url);
  t.after(() => redis.disconnect());
  const apps: TestApp[] = [];
  t.after(async () => {
    for (const a of apps) await a.close();
  });
  const env = (prefix: string) => ({
    REDIS_URL: own.url, GANTRY_REDIS_PREFIX: prefix, GANTRY_REDIS_TIMEOUT_MS: '2000', GANTRY_HOT_CACHE_TTL_MS: '0',
    GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '100000',
  });
  apps.push(await buildTestApp({ env: env('inst-a:') }), await buildTestApp({ env: env('inst-b:') }));
  const [a, b] = apps as [TestApp, TestApp];
  // Both stores are copies of one template: the same first team, the same key, the same rate
  // window key. Without prefixes the two installations would count into one window.
  assert.equal(a.creds.userId, b.creds.userId);
  const chat = (app: TestApp) => app.app.inject({
    method: 'POST', url: '/openai/v1/chat/completions',
    headers: { authorization: `Bearer ${app.creds.apiKey}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ model: 'gantry/sim-chat-small', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }),
  });
  for (const app of [a, b]) {
    const set = await as(app.app, app.creds.adminToken).put(`/admin/v1/teams/${app.creds.userId}/quotas`, { model: 'gantry/sim-chat-small', quotaType: 'RPM', currentQuota: 1 });
    assert.equal(set.status, 200, JSON.stringify(set.body));
  }
  assert.equal((await chat(a)).statusCode, 200);
  assert.equal((await chat(b)).statusCode, 200, 'installation b has its own rate window');
  assert.equal((await chat(a)).statusCode, 429, 'installation a counts in Redis: its second request in the minute is refused');

  // Failed authentications: counted (and locked out) per installation.
  const wrong = (app: TestApp) => app.app.inject({ method: 'GET', url: '/admin/v1/teams', headers: { authorization: 'Bearer gop_wrong' } });
  assert.equal((await wrong(a)).statusCode, 401);

  // The serverless load (no endpoint here: the adapter as services.ts builds it).
  const loadA = new RedisLoad({ url: own.url, namespace: 'inst-a:', commandTimeoutMs: 2000 });
  const loadB = new RedisLoad({ url: own.url, namespace: 'inst-b:', commandTimeoutMs: 2000 });
  t.after(() => Promise.all([loadA.close(), loadB.close()]));
  const now = Date.now();
  assert.ok(await loadA.tryAcquire('w1', 1, 60_000, now));
  assert.equal(await loadA.tryAcquire('w1', 1, 60_000, now), null, 'a\'s one slot is taken');
  assert.ok(await loadB.tryAcquire('w1', 1, 60_000, now), 'b\'s worker w1 is another worker');
  await loadA.reportQueue('ep1', { waiting: 3, oldestSinceMs: now });
  assert.equal((await loadA.queue('ep1')).waiting, 3);
  assert.equal((await loadB.queue('ep1')).waiting, 0);

  // A lockout is announced on the installation's own channel.
  const failA = new RedisAuthFailures({ url: own.url, namespace: 'inst-a:', commandTimeoutMs: 2000 });
  const failB = new RedisAuthFailures({ url: own.url, namespace: 'inst-b:', commandTimeoutMs: 2000 });
  t.after(() => Promise.all([failA.close(), failB.close()]));
  const heardA: string[] = [];
  const heardB: string[] = [];
  failA.onLock((s) => heardA.push(s));
  failB.onLock((s) => heardB.push(s));
  const subject = `s-${randomUUID()}`;
  await new Promise((r) => setTimeout(r, 300)); // both subscribed
  await failA.hit([subject], [2], 60_000, now);
  await failA.hit([subject], [2], 60_000, now);
  assert.equal(await failA.count(subject, now), 2);
  assert.equal(await failB.count(subject, now), 0);
  const until = Date.now() + 5_000;
  while (!heardA.length && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(heardA, [subject]);
  assert.deepEqual(heardB, [], 'b does not hear a\'s lockout');

  // Everything either wrote is under its prefix: nothing at the top level (`gw:epoch` …).
  const keys = await allKeys(redis);
  assert.ok(keys.some((k) => k.startsWith('inst-a:gw:')) && keys.some((k) => k.startsWith('inst-b:gw:')), keys.join(' '));
  assert.ok(keys.some((k) => k.startsWith('inst-a:af:')), 'a\'s failed authentications');
  assert.ok(keys.some((k) => k.startsWith('inst-b:sl:')), 'b\'s worker slots');
  assert.deepEqual(keys.filter((k) => !k.startsWith('inst-a:') && !k.startsWith('inst-b:')), []);
  const channels = (await redis.pubsub('CHANNELS', '*')) as string[];
  assert.ok(channels.length >= 2, channels.join(' '));
  assert.deepEqual(channels.filter((c) => !c.startsWith('inst-a:') && !c.startsWith('inst-b:')), []);
});
