// The PostgreSQL usage journal's promises (pg-journal-sink.ts): a record is durable in
// usage_journal when record() resolves, and in the ledger once any replica's settled()
// resolves; two replicas moving at once record every request exactly once; rows a dead
// replica left are moved by the others; a record the ledger refuses is set aside without
// holding up the rest. Two sinks on one database stand for two replicas. Runs on the
// embedded store too (same SQL), and on PostgreSQL with TEST_DATABASE_URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../lib/logger.ts';
import { sql } from 'drizzle-orm';
import { openTestStore } from '../../test/helpers/app.ts';
import type { Credentials } from '../domain/bootstrap.ts';
import { getSetting } from '../store/settings.ts';
import { ManualClock } from '../lib/clock.ts';
import { standaloneCtx, type Ctx } from '../domain/context.ts';
import { newId } from '../lib/ids.ts';
import { unbalancedCharges, usageTotals } from '../store/usage.ts';
import { usageCostMicro, type UsageRecord } from '../domain/usage/record.ts';
import { appendJournal } from '../store/usage-journal.ts';
import { encodeUsage } from '../domain/usage/codec.ts';
import { PgJournalSink } from './pg-journal-sink.ts';

const log = silentLogger;
const never = 3_600_000; // no background move: only settled() moves

async function setup() {
  const store = await openTestStore();
  const ctx: Ctx = standaloneCtx(store.db, new ManualClock());
  const creds = (await getSetting<Credentials>(store.db, 'test_credentials'))!; // the template's seeded team
  const rec = (teamId = creds.userId): UsageRecord => ({
    requestId: newId('request'), teamId, memberId: creds.ownerMemberId, keyId: creds.keyId, model: 'gantry/sim-chat-small',
    endpoint: 'chat.completions', promptTokens: 10, completionTokens: 5, inputPricePerMUnits: 100n, outputPricePerMUnits: 200n,
    outcome: 'completed', durationMs: 1, atMs: ctx.clock.nowMs(),
  });
  const count = async (q: ReturnType<typeof sql>) => Number(((await store.db.execute(q)) as unknown as { rows: Array<{ n: number }> }).rows[0]!.n);
  const journaled = () => count(sql`select count(*)::int as n from usage_journal`);
  const wallet = async () => {
    const r = ((await store.db.execute(sql`select (cash_micro + voucher_micro - outstanding_micro)::text as w from teams where id = ${creds.userId}`)) as unknown as { rows: Array<{ w: string }> }).rows[0]!;
    return BigInt(r.w);
  };
  return { store, ctx, rec, count, journaled, wallet, teamId: creds.userId };
}

test('record() leaves the request in the journal; settled() on another replica puts it in the ledger and the wallet', async () => {
  const s = await setup();
  const a = await PgJournalSink.open(s.ctx, log, { maxDelayMs: never, sweepMs: never });
  const b = await PgJournalSink.open(s.ctx, log, { maxDelayMs: never, sweepMs: never });
  try {
    const before = await usageTotals(s.store.db, s.teamId);
    const walletBefore = await s.wallet();
    const recs = Array.from({ length: 30 }, () => s.rec());
    await Promise.all(recs.map((r) => a.record(r)));
    assert.equal(await s.journaled(), 30, 'durable in the journal when record() resolved');
    assert.equal((await usageTotals(s.store.db, s.teamId)).events, before.events, 'not moved yet');
    await b.settled(); // the reader is on the other replica
    const after = await usageTotals(s.store.db, s.teamId);
    assert.equal(after.events - before.events, 30);
    assert.equal(after.chargedRequests - before.chargedRequests, 30);
    assert.equal(await unbalancedCharges(s.store.db, s.teamId), 0);
    assert.equal(await s.journaled(), 0);
    const cost = recs.reduce((n, r) => n + usageCostMicro(r), 0n);
    assert.equal(walletBefore - (await s.wallet()), cost, 'the wallet pays exactly the charges');
    assert.ok(a.stats().batches! < 30, `concurrent records share inserts (${a.stats().batches} inserts for 30)`);
  } finally {
    await a.close();
    await b.close();
    await s.store.close();
  }
});

test('two replicas recording and moving at once record every request exactly once', async () => {
  const s = await setup();
  // small batches and short delays: many moves, barriers and background passes overlap
  const opts = { maxBatch: 16, maxDelayMs: 1, sweepMs: 5 };
  const a = await PgJournalSink.open(s.ctx, log, opts);
  const b = await PgJournalSink.open(s.ctx, log, opts);
  try {
    const before = await usageTotals(s.store.db, s.teamId);
    const recs = Array.from({ length: 400 }, () => s.rec());
    await Promise.all(recs.map((r, i) => (i % 2 ? a : b).record(r).then(() => (i % 25 === 0 ? (i % 2 ? b : a).settled() : undefined))));
    await Promise.all([a.settled(), b.settled()]);
    const after = await usageTotals(s.store.db, s.teamId);
    assert.equal(after.events - before.events, 400);
    assert.equal(after.requests - before.requests, 400, 'no request twice');
    assert.equal(after.chargedRequests - before.chargedRequests, 400, 'each request charged once');
    assert.equal(await unbalancedCharges(s.store.db, s.teamId), 0);
    assert.equal(await s.journaled(), 0);
    assert.ok(a.stats().moved! > 0 && b.stats().moved! > 0, `both replicas moved rows (${a.stats().moved} + ${b.stats().moved})`);
  } finally {
    await a.close();
    await b.close();
    await s.store.close();
  }
});

test('rows a dead replica journaled are moved by a live one without anyone reading', async () => {
  const s = await setup();
  const before = await usageTotals(s.store.db, s.teamId);
  // the insert a replica made before it was killed: in the journal, never moved
  const recs = Array.from({ length: 7 }, () => s.rec());
  await appendJournal(s.store.db, recs.map(encodeUsage));
  const live = await PgJournalSink.open(s.ctx, log, { maxDelayMs: never, sweepMs: 20 });
  try {
    const until = Date.now() + 20_000;
    while ((await usageTotals(s.store.db, s.teamId)).events - before.events < 7) {
      assert.ok(Date.now() < until, 'the sweep never moved the rows');
      await new Promise((r) => setTimeout(r, 10)); // polling the database for the sweep's effect
    }
    assert.equal(await s.journaled(), 0);
  } finally {
    await live.close();
    await s.store.close();
  }
});

test('a record the ledger refuses is set aside; the others are recorded and readers are not held up', async () => {
  const s = await setup();
  const a = await PgJournalSink.open(s.ctx, log, { maxDelayMs: never, sweepMs: never });
  try {
    const before = await usageTotals(s.store.db, s.teamId);
    const good = Array.from({ length: 5 }, () => s.rec());
    const bad = s.rec('team-that-does-not-exist'); // its charge cannot be posted: no such team
    for (const r of [good[0]!, good[1]!, bad, good[2]!, good[3]!, good[4]!]) await a.record(r);
    await a.settled();
    const after = await usageTotals(s.store.db, s.teamId);
    assert.equal(after.events - before.events, 5);
    assert.equal(a.stats().failed, 1);
    assert.equal(await s.count(sql`select count(*)::int as n from usage_journal where failed_at is not null and request_id = ${bad.requestId}`), 1, 'kept, marked');
    await a.settled(); // the marked row does not hold a reader
    // The next start tries it again (the cause may be gone): here it fails again and is marked again.
    const again = await PgJournalSink.open(s.ctx, log, { maxDelayMs: never, sweepMs: never });
    await again.settled();
    assert.equal(again.stats().failed, 1);
    await again.close();
  } finally {
    await a.close();
    await s.store.close();
  }
});
