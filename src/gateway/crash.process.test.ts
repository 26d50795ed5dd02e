// Crash: kill -9 a Gantry process after K completed model requests; after a restart on the
// same store the ledger holds exactly K usage events and K charges, none twice. Completed
// means the client read the whole response, so this proves the event is durable first.
// Runs for each way of making usage durable (GANTRY_USAGE_JOURNAL): the journal (default),
// the journal with fdatasync, and a database commit before each response; and on PostgreSQL,
// its journal table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { startServer } from '../../test/helpers/server.ts';
import { openTestStore } from '../../test/helpers/app.ts';
import { getSetting } from '../store/settings.ts';
import type { Credentials } from '../domain/bootstrap.ts';

for (const mode of ['on', 'fsync', 'off']) {
  test(`kill -9 after K completed requests leaves exactly K usage events (GANTRY_USAGE_JOURNAL=${mode})`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gantry-crash-'));
    const env = { GANTRY_DATA_DIR: dataDir, GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '100000', GANTRY_USAGE_JOURNAL: mode };
    let server = await startServer(env);
    try {
      const creds = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
      const call = async (i: number) => {
        const res = await fetch(`${server.url}/openai/v1/chat/completions`, {
          method: 'POST', headers: { authorization: `Bearer ${creds.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'gantry/sim-chat-small', messages: [{ role: 'user', content: `request ${i}` }], max_tokens: 20, stream: i % 2 === 1 }),
        });
        const text = await res.text();
        assert.equal(res.status, 200, text);
        if (i % 2 === 1) assert.ok(text.trimEnd().endsWith('data: [DONE]'));
      };
      // The first team is T1 (30 RPM): lift the limits so the burst below is admitted.
      for (const [quotaType, currentQuota] of [['RPM', '1000'], ['TPM', '10000000']]) {
        const r = await fetch(`${server.url}/admin/v1/teams/${creds.userId}/quotas`, {
          method: 'PUT', headers: { authorization: `Bearer ${creds.adminToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'gantry/sim-chat-small', quotaType, currentQuota }),
        });
        assert.equal(r.status, 200, await r.text());
      }
      const sequential = 7;
      for (let i = 0; i < sequential; i++) await call(i);
      // Then a burst answered all at once, killed right after the last answer: with the
      // journal these are not in the database yet, only in the journal.
      const burst = 40;
      await Promise.all(Array.from({ length: burst }, (_, i) => call(sequential + i)));
      await server.kill('SIGKILL');
      server = await startServer(env);
      const usage = await fetch(`${server.url}/admin/v1/teams/${creds.userId}/usage`, { headers: { authorization: `Bearer ${creds.adminToken}` } });
      const totals = await usage.json() as { events: number; requests: number; chargedRequests: number; costMicro: string; chargedMicro: string };
      assert.equal(usage.status, 200, JSON.stringify(totals));
      const K = sequential + burst;
      assert.equal(totals.events, K);
      assert.equal(totals.requests, K, 'no request recorded twice');
      assert.equal(totals.chargedRequests, K, 'every request charged once');
      assert.equal(totals.chargedMicro, totals.costMicro, 'the charges add up to the events');
      if (mode !== 'off') {
        // The replayed segments are gone; only the new process's (empty) segment remains.
        const dir = join(dataDir, 'usage-journal');
        for (const f of readdirSync(dir)) assert.equal(statSync(join(dir, f)).size, 0, `${f} still holds lines`);
      }
    } finally {
      await server.kill('SIGTERM');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}

// The replica setup: usage journaled in PostgreSQL's usage_journal. A replica killed right
// after its answers leaves their rows there (moves are held back here so they are all still
// waiting); a reader on another replica moves them: exactly K, none twice.
test('kill -9 a PostgreSQL replica after K completed requests: another replica finds exactly K', {
  skip: process.env.TEST_DATABASE_URL ? false : 'needs TEST_DATABASE_URL',
}, async () => {
  const store = await openTestStore();
  const creds = (await getSetting<Credentials>(store.db, 'test_credentials'))!;
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-crash-pg-'));
  const env = {
    DATABASE_URL: store.databaseUrl!, GANTRY_DATA_DIR: dataDir, GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '100000',
    GANTRY_USAGE_MOVE_DELAY_MS: '3600000', GANTRY_RUN_JOBS: 'false',
  };
  const a = await startServer(env);
  let b: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    for (const [quotaType, currentQuota] of [['RPM', '1000'], ['TPM', '10000000']]) {
      const r = await fetch(`${a.url}/admin/v1/teams/${creds.userId}/quotas`, {
        method: 'PUT', headers: { authorization: `Bearer ${creds.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gantry/sim-chat-small', quotaType, currentQuota }),
      });
      assert.equal(r.status, 200, await r.text());
    }
    const usage = async (url: string) => {
      const res = await fetch(`${url}/admin/v1/teams/${creds.userId}/usage`, { headers: { authorization: `Bearer ${creds.adminToken}` } });
      assert.equal(res.status, 200);
      return await res.json() as { events: number; requests: number; chargedRequests: number; costMicro: string; chargedMicro: string };
    };
    const before = await usage(a.url);
    const K = 40;
    await Promise.all(Array.from({ length: K }, async (_, i) => {
      const res = await fetch(`${a.url}/openai/v1/chat/completions`, {
        method: 'POST', headers: { authorization: `Bearer ${creds.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gantry/sim-chat-small', messages: [{ role: 'user', content: `request ${i}` }], max_tokens: 20, stream: i % 2 === 1 }),
      });
      const text = await res.text();
      assert.equal(res.status, 200, text);
    }));
    await a.kill('SIGKILL');
    const waiting = (await store.db.execute(sql`select count(*)::int as n from usage_journal`)) as unknown as { rows: Array<{ n: number }> };
    assert.equal(waiting.rows[0]!.n, K, 'the killed replica left every answered request in the journal');
    b = await startServer(env);
    const after = await usage(b.url);
    assert.equal(after.events - before.events, K);
    assert.equal(after.requests - before.requests, K, 'no request recorded twice');
    assert.equal(after.chargedRequests - before.chargedRequests, K, 'every request charged once');
    assert.equal(after.chargedMicro, after.costMicro, 'the charges add up to the events');
  } finally {
    await a.kill('SIGTERM');
    await b?.kill('SIGTERM');
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
