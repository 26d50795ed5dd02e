// Two Gantry processes on one PostgreSQL and one Redis share one batch: both take chunks of
// its lines (jobs leased by either runner), and together they run every line once, bill it
// once and write it to the output once. Needs TEST_DATABASE_URL and TEST_REDIS_URL (CI sets
// both); skipped otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { openTestStore } from '../../test/helpers/app.ts';
import { replicaEnv, startServer, type Server } from '../../test/helpers/server.ts';
import { getSetting } from '../store/settings.ts';
import { unbalancedCharges } from '../store/usage.ts';
import type { Credentials } from '../domain/bootstrap.ts';

const skip = !process.env.TEST_DATABASE_URL || !process.env.TEST_REDIS_URL ? 'needs TEST_DATABASE_URL and TEST_REDIS_URL' : false;
const N = 240;
const CHUNK = 10;

async function api(server: Server, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(server.url + path, {
    method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try { parsed = JSON.parse(text); } catch { /* JSONL or text */ }
  return { status: res.status, body: parsed };
}

test('two replicas share a batch: both run chunks of it; every line once, billed once, in the output once', { skip, timeout: 180_000 }, async () => {
  const store = await openTestStore();
  const creds = (await getSetting<Credentials>(store.db, 'test_credentials'))!;
  const env = {
    ...replicaEnv(store.databaseUrl!, process.env.TEST_REDIS_URL!, '/tmp/gantry-batch-replicas'),
    // each line holds its slot ~40 ms; 2 slots per process: one process alone could not keep up
    GANTRY_SIM_TTFT_MS: '40', GANTRY_SIM_TOKENS_PER_S: '100000', GANTRY_BATCH_CONCURRENCY: '2',
    GANTRY_BATCH_CHUNK_LINES: String(CHUNK), GANTRY_JOBS_POLL_MS: '50',
  };
  const servers: Server[] = [];
  try {
    servers.push(await startServer(env), await startServer(env));
    const [a, b] = servers as [Server, Server];
    const admin = (path: string, body: unknown) => api(a, creds.adminToken, 'POST', path, body);
    const team = (await admin('/admin/v1/teams', { name: 'batch-replicas', ownerEmail: 'owner@batch-replicas.test' })).body;
    const key = (await admin(`/admin/v1/members/${team.ownerMemberId}/keys`, { name: 'k' })).body.apiKey as string;
    assert.equal((await admin(`/admin/v1/teams/${team.userId}/topups`, { amount: 10_000_000, idempotencyKey: 'br-1' })).status, 200);

    const lines = Array.from({ length: N }, (_, i) => JSON.stringify({
      custom_id: `r${i}`, method: 'POST', url: '/v1/chat/completions',
      body: { model: 'gantry/sim-chat-small', messages: [{ role: 'user', content: `line ${i}` }], max_tokens: 5 },
    }));
    const form = new FormData();
    form.set('purpose', 'batch');
    form.set('file', new Blob([`${lines.join('\n')}\n`]), 'input.jsonl');
    const upload = await fetch(`${a.url}/openai/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    const file = await upload.json() as { id: string };
    assert.equal(upload.status, 200, JSON.stringify(file));
    const created = await api(a, key, 'POST', '/openai/v1/batches', { input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '48h' });
    assert.equal(created.status, 200, JSON.stringify(created.body));

    // polled through the other replica: the batch's state is the store's, not a process's
    let done: any;
    for (let i = 0; ; i++) {
      done = (await api(b, key, 'GET', `/openai/v1/batches/${created.body.id}`)).body;
      if (!['VALIDATING', 'PROGRESS', 'FINALIZING'].includes(done.status)) break;
      assert.ok(i < 6000, `never finished: ${JSON.stringify(done)}\n${a.output()}\n${b.output()}`);
      await delay(20);
    }
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done));
    assert.deepEqual(done.request_counts, { total: N, completed: N, failed: 0 });
    const output = String((await api(a, key, 'GET', `/openai/v1/files/${done.output_file_id}/content`)).body).trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(output.map((o) => o.custom_id), lines.map((_, i) => `r${i}`), 'every line once, in order');

    // a reader of money, as a user checking the bill would: lines' usage still in the usage
    // journal is moved into the ledger first
    assert.equal((await api(b, key, 'GET', '/openapi/v1/billing/balance/detail')).status, 200);
    const q = async (query: ReturnType<typeof sql>) => ((await store.db.execute(query)) as unknown as { rows: Record<string, unknown>[] }).rows;
    const owners = await q(sql`select lease_owner, count(*)::int as n from jobs where name = 'batch.lines' and state = 'completed' group by lease_owner`);
    assert.equal(owners.length, 2, `both replicas ran chunks: ${JSON.stringify(owners)}`);
    assert.equal(owners.reduce((s, o) => s + Number(o.n), 0), N / CHUNK);
    // Batch API charges (one per group of lines answered in the same second) cover every line once.
    const [charges] = await q(sql`select coalesce(sum((detail->>'requests')::int), 0)::int as n from ledger_entries
                                   where team_id = ${team.userId} and category = 'batch' and billing_method = 5`);
    assert.deepEqual(charges, { n: N }, 'every line charged once, as a Batch API charge');
    assert.equal(await unbalancedCharges(store.db, team.userId), 0, 'each charge is the sum of the lines it covers');
    const [events] = await q(sql`select count(*)::int as n from usage_events where team_id = ${team.userId}`);
    assert.equal(events!.n, N, 'one usage event per line');
  } finally {
    await Promise.all(servers.map((s) => s.kill('SIGTERM')));
    await store.close();
  }
});
