// Two Gantry processes on one PostgreSQL and one Redis: failed authentications on replica A
// count on replica B, and a lockout reached on one replica is known to the other before it
// checks a credential (Redis pub/sub), while another client address is not affected.
// Needs TEST_DATABASE_URL and TEST_REDIS_URL (CI sets both); skipped otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTestStore } from '../../../test/helpers/app.ts';
import { replicaEnv, startServer, type Server } from '../../../test/helpers/server.ts';
import { getSetting } from '../../store/settings.ts';
import type { Credentials } from '../../domain/bootstrap.ts';

const skip = !process.env.TEST_DATABASE_URL || !process.env.TEST_REDIS_URL ? 'needs TEST_DATABASE_URL and TEST_REDIS_URL' : false;
const LIMIT = 5;

async function models(s: Server, key: string, from: string): Promise<{ status: number; body: any; retryAfter: string | null }> {
  // the test talks to the replicas through loopback, which they trust as a proxy (GANTRY_TRUST_PROXY)
  const res = await fetch(`${s.url}/openai/v1/models`, { headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': from } });
  return { status: res.status, body: await res.json(), retryAfter: res.headers.get('retry-after') };
}

test('two replicas share failed authentications through Redis', { skip }, async (t) => {
  const store = await openTestStore();
  const creds = (await getSetting<Credentials>(store.db, 'test_credentials'))!;
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-auth-replicas-'));
  const env = {
    ...replicaEnv(store.databaseUrl!, process.env.TEST_REDIS_URL!, dataDir), GANTRY_TRUST_PROXY: '127.0.0.1',
    GANTRY_AUTH_FAILURES_PER_ADDRESS: String(LIMIT), GANTRY_AUTH_FAILURES_PER_PREFIX: String(LIMIT),
  };
  const servers: Server[] = [];
  try {
    servers.push(await startServer(env), await startServer(env));
    const [a, b] = servers as [Server, Server];
    // addresses of this run only: other suites share this Redis (and 127.0.0.1)
    const net = `198.18.${randomInt(256)}`;
    const attacker = `${net}.${randomInt(1, 128)}`;
    const neighbour = `${net}.${randomInt(128, 255)}`;
    const wrong = () => `sk_${randomBytes(32).toString('base64url')}`;

    // failures alternate between the replicas; together they reach the limit
    for (let i = 0; i < LIMIT; i++) {
      const r = await models(i % 2 ? b : a, wrong(), attacker);
      assert.equal(r.status, 401, `failure ${i + 1}: ${JSON.stringify(r.body)}`);
    }
    // the last failure was on A: B was told, and refuses the attacker's right key before checking it
    const until = Date.now() + 10_000;
    let confirmed = 0;
    for (;;) {
      const r = await models(b, creds.apiKey, attacker);
      if (r.status === 429) {
        assert.equal(r.body.reason, 'RATE_LIMIT_EXCEEDED');
        assert.ok(Number(r.retryAfter) >= 1 && Number(r.retryAfter) <= 60, `retry-after ${r.retryAfter}`);
        break;
      }
      assert.equal(r.status, 200);
      confirmed++;
      assert.ok(Date.now() < until, 'replica B never learnt of the lockout reached on A');
    }
    t.diagnostic(`requests B answered before it knew of the lockout: ${confirmed}`);
    assert.ok(confirmed <= 1, `B confirmed the key ${confirmed} times before it knew`);
    // a further failure on either replica is over the shared count: 429 at once
    assert.equal((await models(a, wrong(), attacker)).status, 429);
    assert.equal((await models(a, creds.apiKey, attacker)).status, 429);
    // the same key from another address works on both
    assert.equal((await models(a, creds.apiKey, neighbour)).status, 200);
    assert.equal((await models(b, creds.apiKey, neighbour)).status, 200);
  } finally {
    for (const s of servers) await s.kill('SIGTERM');
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
