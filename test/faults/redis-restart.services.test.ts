// Redis is killed and restarted empty while long requests hold budget: nothing admits more
// than it would have without the restart — key budget, member budget, account balance, RPM —
// and a budget that can pay is not refused for more than a second after the event.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Server } from '../helpers/server.ts';
import { assertAlive, skipFaults, startCluster, teamWithKey, type Cluster } from './cluster.ts';

const MODEL = 'acme/slow-faults';
// 300 output tokens at 10 units each, no input price: every request reserves and costs 3000 units.
const LONG = { model: MODEL, messages: [{ role: 'user', content: 'go' }], max_tokens: 300, ignore_eos: true, stream: true };
const COST = 3000;

interface Long {
  /** status of the answer's headers: 200 once admitted */
  admitted: Promise<number>;
  /** resolves when the stream has ended */
  done: Promise<void>;
}

function longRequest(server: Server, apiKey: string): Long {
  let admit!: (s: number) => void;
  const admitted = new Promise<number>((r) => { admit = r; });
  const done = (async () => {
    const res = await fetch(`${server.url}/openai/v1/chat/completions`, {
      method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(LONG),
    });
    if (res.status !== 200) {
      await res.text();
      admit(res.status);
      return;
    }
    const reader = res.body!.getReader();
    let first = true;
    for (;;) {
      const { done: end } = await reader.read();
      if (first) {
        admit(200);
        first = false;
      }
      if (end) break;
    }
  })();
  done.catch(() => admit(0));
  return { admitted, done };
}

async function used(c: Cluster, key: string, memberId: string, keyId: string): Promise<number> {
  const r = await c.api(c.replicas[0], key, 'GET', `/openapi/v1/user/team/key-budget-list?member_id=${memberId}`);
  return r.body.key_budgets.find((k: any) => k.key_id === keyId).used;
}

test('Redis restarted empty while long requests run: no budget, balance or rate limit admits more', { skip: skipFaults, timeout: 180_000 }, async () => {
  const c = await startCluster({ GANTRY_SIM_TOKENS_PER_S: '100' });
  try {
    const [a, b] = c.replicas;
    const admin = (method: string, path: string, body?: unknown) => c.api(a, c.adminToken, method, path, body);
    assert.equal((await admin('POST', '/admin/v1/models', {
      id: MODEL, title: 'Slow', contextSize: 4096, inputTokenPricePerM: 0, outputTokenPricePerM: 10_000_000, status: 'available', upstream: 'sim',
    })).status, 200);

    // Four payers, each able to pay exactly four requests (12,000 units) …
    const byKey = await teamWithKey(c, 'bykey', 1_000_000);
    assert.equal((await c.api(a, byKey.apiKey, 'PUT', '/openapi/v1/user/team/key-budget', { member_id: byKey.ownerMemberId, key_id: byKey.keyId, budget_type: 'One-time', budget_limit: 4 * COST })).status, 200);
    const byMember = await teamWithKey(c, 'bymember', 1_000_000);
    assert.equal((await c.api(a, byMember.apiKey, 'PUT', '/openapi/v1/user/team/budget', { member_id: byMember.ownerMemberId, budget_type: 'One-time', budget_limit: 4 * COST })).status, 200);
    const byBalance = await teamWithKey(c, 'bybalance', 4 * COST);
    // … and one that can pay six, to see it is not refused once its four are done.
    const roomy = await teamWithKey(c, 'roomy', 1_000_000);
    assert.equal((await c.api(a, roomy.apiKey, 'PUT', '/openapi/v1/user/team/key-budget', { member_id: roomy.ownerMemberId, key_id: roomy.keyId, budget_type: 'One-time', budget_limit: 6 * COST })).status, 200);
    // RPM: 30 a minute on the small model for one team.
    const rated = await teamWithKey(c, 'rated', 1_000_000);
    assert.equal((await admin('PUT', `/admin/v1/teams/${rated.userId}/quotas`, { model: 'gantry/sim-chat-small', quotaType: 'RPM', currentQuota: 30 })).status, 200);

    const payers = [byKey, byMember, byBalance, roomy];
    const inFlight = payers.flatMap((p) => [0, 1, 2, 3].map((i) => longRequest(i % 2 ? b : a, p.apiKey)));
    assert.deepEqual(await Promise.all(inFlight.map((l) => l.admitted)), inFlight.map(() => 200), 'four long requests each fill the budgets');
    const small = { model: 'gantry/sim-chat-small', messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 };
    const firstBurst = await Promise.all(Array.from({ length: 30 }, (_, i) => c.api(i % 2 ? b : a, rated.apiKey, 'POST', '/openai/v1/chat/completions', small)));
    assert.equal(firstBurst.filter((r) => r.status === 200).length, 30);

    // Redis loses everything, for half a second.
    const putBack = 'Redis lost its counters: put back';
    assert.ok(c.replicas.every((s) => !s.output().includes(putBack)), 'no replica has put back its counters before Redis lost them');
    await c.redis.kill();
    await new Promise((r) => setTimeout(r, 500)); // the outage itself lasts this long (the scenario of the issue)
    await c.redis.start();

    // From the restart until each replica has put back the reservations and rate windows it
    // holds (it says so in its log), and for five rounds after: more long requests from each
    // full payer, a round at a time (each waits for its answers); then 30 more for the rated team.
    const tries: number[] = [];
    const restored = () => c.replicas.every((s) => s.output().includes(putBack));
    const giveUpAt = Date.now() + 30_000;
    for (let after = 0; after < 5; after += restored() ? 1 : 0) {
      assert.ok(Date.now() < giveUpAt, `a replica never put back its counters:\n${a.output().slice(-2000)}\n${b.output().slice(-2000)}`);
      tries.push(...await Promise.all([byKey, byMember, byBalance].map((p, i) => longRequest((tries.length + i) % 2 ? a : b, p.apiKey).admitted)));
    }
    const secondBurst = await Promise.all(Array.from({ length: 30 }, (_, i) => c.api(i % 2 ? b : a, rated.apiKey, 'POST', '/openai/v1/chat/completions', small)));
    const extra = tries.filter((s) => s === 200).length;
    assert.equal(extra, 0, 'no full budget or balance admitted another request');
    for (const r of secondBurst) assert.ok(r.status === 429 || r.status === 503, `RPM: ${r.status} ${JSON.stringify(r.body)}`);

    await Promise.all(inFlight.map((l) => l.done));
    // The ledger agrees: nothing was spent past any limit.
    assert.ok(await used(c, byKey.apiKey, byKey.ownerMemberId, byKey.keyId) <= 4 * COST);
    const members = (await c.api(a, byMember.apiKey, 'GET', '/openapi/v1/user/team/budget-list')).body.budgets;
    assert.ok(members.find((m: any) => m.member_id === byMember.ownerMemberId).used <= 4 * COST);
    const bal = (await c.api(a, byBalance.apiKey, 'GET', '/openapi/v1/billing/balance/detail')).body;
    assert.ok(Number(bal.availableBalance) >= 0, `balance ${bal.availableBalance}`);

    // The roomy key can still pay two: admitted within a second of its four ending.
    const freedAt = Date.now();
    let admittedAfterMs = -1;
    while (Date.now() - freedAt < 5000) {
      const s = await longRequest(a, roomy.apiKey).admitted;
      if (s === 200) {
        admittedAfterMs = Date.now() - freedAt;
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(admittedAfterMs >= 0 && admittedAfterMs <= 1000, `a payable request was refused for ${admittedAfterMs} ms`);
    process.stdout.write(`# redis restart: 0 over budget of ${tries.length} tries, RPM ${secondBurst.filter((r) => r.status === 200).length}/30 after, payable admitted after ${admittedAfterMs} ms\n`);
    assertAlive(c);
  } finally {
    await c.close();
  }
});
