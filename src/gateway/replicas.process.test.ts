// Two Gantry processes on one PostgreSQL and one Redis, requests spread over both: a key
// budget is never overspent, and an RPM limit of N admits at most N requests a minute in
// total. Needs TEST_DATABASE_URL and TEST_REDIS_URL (CI sets both); skipped otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../test/helpers/app.ts';
import { replicaEnv, startServer, type Server } from '../../test/helpers/server.ts';
import { getSetting } from '../store/settings.ts';
import type { Credentials } from '../domain/bootstrap.ts';

const skip = !process.env.TEST_DATABASE_URL || !process.env.TEST_REDIS_URL ? 'needs TEST_DATABASE_URL and TEST_REDIS_URL' : false;

/** How many changes of `type` replica `s` has received from others (its /metrics). */
async function received(s: Server, type: string): Promise<number> {
  const text = await (await fetch(`${s.url}/metrics`)).text();
  const m = new RegExp(`^gantry_changes_received_total\\{type="${type.replace('.', '\\.')}"\\} (\\d+)`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

/** Wait until replica `s` has received more than `before` changes of `type` (bounded). */
async function arrived(s: Server, type: string, before: number): Promise<void> {
  const until = Date.now() + 10_000;
  while ((await received(s, type)) <= before) {
    assert.ok(Date.now() < until, `replica never received ${type}`);
    await new Promise((r) => setImmediate(r));
  }
}

async function api(server: Server, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(server.url + path, {
    method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

test('two replicas share budgets and rate limits through Redis', { skip }, async () => {
  const store = await openTestStore();
  const creds = (await getSetting<Credentials>(store.db, 'test_credentials'))!;
  const env = {
    ...replicaEnv(store.databaseUrl!, process.env.TEST_REDIS_URL!, '/tmp/gantry-replicas'),
    GANTRY_SIM_TTFT_MS: '5', GANTRY_SIM_TOKENS_PER_S: '20000',
  };
  const servers: Server[] = [];
  try {
    servers.push(await startServer(env), await startServer(env));
    const [a, b] = servers as [Server, Server];
    const admin = (path: string, body: unknown) => api(a, creds.adminToken, 'POST', path, body);
    const team = (await admin('/admin/v1/teams', { name: 'replicas', ownerEmail: 'owner@replicas.test' })).body;
    const key = (await admin(`/admin/v1/members/${team.ownerMemberId}/keys`, { name: 'k' })).body;
    assert.equal((await admin(`/admin/v1/teams/${team.userId}/topups`, { amount: 1_000_000, idempotencyKey: 'r-1' })).status, 200);
    const model = 'acme/unit-replicas';
    const catalogueSeen = await received(b, 'catalogue.changed');
    assert.equal((await admin('/admin/v1/models', { id: model, title: 'Unit', contextSize: 4096, inputTokenPricePerM: 1000000, outputTokenPricePerM: 1000000, status: 'available', upstream: 'sim' })).status, 200);
    const budget = await api(a, key.apiKey, 'PUT', '/openapi/v1/user/team/key-budget', { member_id: team.ownerMemberId, key_id: key.keyId, budget_type: 'One-time', budget_limit: 10000 });
    assert.equal(budget.status, 200, JSON.stringify(budget.body));
    await arrived(b, 'catalogue.changed', catalogueSeen); // a's change reached b (LISTEN/NOTIFY), no waiting out a TTL

    // Budget: 200 concurrent requests, alternating replicas; ~52 worst cases fit.
    const body = { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 150, ignore_eos: true };
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => api(i % 2 ? b : a, key.apiKey, 'POST', '/openai/v1/chat/completions', body)));
    const ok = results.filter((r) => r.status === 200);
    for (const r of results.filter((x) => x.status !== 200)) {
      assert.equal(r.status, 403, JSON.stringify(r.body));
      assert.equal(r.body.reason, 'BUDGET_EXCEEDED');
    }
    const spent = ok.reduce((s, r) => s + r.body.usage.prompt_tokens + r.body.usage.completion_tokens, 0);
    assert.ok(spent <= 10000, `settled spend ${spent} exceeds the budget`);
    assert.ok(ok.length >= 52, `the budget was used: ${ok.length}`);
    const kb = (await api(b, key.apiKey, 'GET', `/openapi/v1/user/team/key-budget-list?member_id=${team.ownerMemberId}`)).body.key_budgets[0];
    assert.equal(kb.used, spent, 'both replicas settled into one ledger');

    // RPM: a limit of 20 on the small model; 60 requests over both replicas at once.
    const teamSeen = await received(b, 'team.changed');
    assert.equal((await api(a, creds.adminToken, 'PUT', `/admin/v1/teams/${team.userId}/quotas`, { model: 'gantry/sim-chat-small', quotaType: 'RPM', currentQuota: 20 })).status, 200);
    const key2 = (await admin(`/admin/v1/members/${team.ownerMemberId}/keys`, { name: 'k2' })).body; // no budget
    await arrived(b, 'team.changed', teamSeen);
    const small = { model: 'gantry/sim-chat-small', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 };
    const burst = await Promise.all(Array.from({ length: 60 }, (_, i) => api(i % 2 ? b : a, key2.apiKey, 'POST', '/openai/v1/chat/completions', small)));
    const admitted = burst.filter((r) => r.status === 200).length;
    for (const r of burst.filter((x) => x.status !== 200)) assert.equal(r.body.reason, 'RATE_LIMIT_EXCEEDED', JSON.stringify(r.body));
    assert.equal(admitted, 20, 'exactly N admitted in the minute across both replicas');
  } finally {
    for (const s of servers) await s.kill('SIGTERM');
    await store.close();
  }
});
