// The journal sink's promises: a record is in the database once settled() resolves; a replay
// stores what an earlier process left and skips what it had already stored; past maxLag a
// record waits for the database (backpressure).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../lib/logger.ts';
import { openTestStore } from '../../test/helpers/app.ts';
import type { Credentials } from '../domain/bootstrap.ts';
import { getSetting } from '../store/settings.ts';
import { ManualClock } from '../lib/clock.ts';
import { standaloneCtx } from '../domain/context.ts';
import { newId } from '../lib/ids.ts';
import { unbalancedCharges, usageTotals } from '../store/usage.ts';
import { recordUsage, type UsageRecord } from '../domain/usage/record.ts';
import { JournalSink } from './journal-sink.ts';
import { decodeUsage } from '../domain/usage/codec.ts';
import type { Ctx } from '../domain/context.ts';

const log = silentLogger;

async function setup() {
  const store = await openTestStore();
  const ctx: Ctx = standaloneCtx(store.db, new ManualClock());
  const creds = (await getSetting<Credentials>(store.db, 'test_credentials'))!; // the template's seeded team
  const dir = mkdtempSync(join(tmpdir(), 'gantry-sink-test-'));
  const rec = (): UsageRecord => ({
    requestId: newId('request'), teamId: creds.userId, memberId: creds.ownerMemberId, keyId: creds.keyId, model: 'gantry/sim-chat-small',
    endpoint: 'chat.completions', promptTokens: 10, completionTokens: 5, inputPricePerMUnits: 100n, outputPricePerMUnits: 200n,
    outcome: 'completed', durationMs: 1, atMs: ctx.clock.nowMs(),
  });
  const close = async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  };
  // As the app wires it: through the database thread's procedure when there is one.
  const write = (lines: string[], careful: boolean) =>
    store.procedure ? store.procedure<void>('recordUsage', { lines, careful }) : recordUsage(ctx, lines.map(decodeUsage), careful);
  return { store, ctx, dir, rec, write, teamId: creds.userId, close };
}

test('settled() resolves once every record before it is in the ledger; close() leaves no lines', async () => {
  const s = await setup();
  try {
    const sink = await JournalSink.open(log, { write: s.write, dir: s.dir, fsync: false });
    const before = await usageTotals(s.store.db, s.teamId);
    const answers = Array.from({ length: 25 }, () => sink.record(s.rec()));
    assert.equal(new Set(answers).size, 1, 'records of one turn of the event loop share one append');
    await Promise.all(answers);
    const lines = readdirSync(s.dir).map((f) => readFileSync(join(s.dir, f), 'utf8')).join('').split('\n').filter(Boolean);
    assert.equal(lines.length, 25, 'in the journal file when record() resolved');
    assert.equal(sink.stats().lag, 25);
    await sink.settled();
    const after = await usageTotals(s.store.db, s.teamId);
    assert.equal(after.events - before.events, 25);
    assert.equal(after.chargedRequests - before.chargedRequests, 25);
    assert.equal(after.ledgerCharges - before.ledgerCharges, 1, 'one key, one model, one second, one batch: one charge');
    assert.equal(await unbalancedCharges(s.store.db, s.teamId), 0);
    await sink.close();
    for (const f of readdirSync(s.dir)) assert.equal(statSync(join(s.dir, f)).size, 0);
  } finally {
    await s.close();
  }
});

test('replay stores what a killed process left, once: records already in the ledger are skipped', async () => {
  const s = await setup();
  try {
    // maxDelayMs: its background writer must not store the last 4 before the "restart".
    const first = await JournalSink.open(log, { write: s.write, dir: s.dir, fsync: false, maxDelayMs: 60_000 });
    const recs = Array.from({ length: 10 }, s.rec);
    for (const r of recs.slice(0, 6)) void first.record(r);
    await first.settled(); // 6 stored; their lines are done, but the process "dies" before the segment is deleted:
    await Promise.all(recs.slice(6).map((r) => first.record(r))); // 4 only journaled (in the file when record() resolves)
    // No close(): the second sink opens the same directory as a restarted process would.
    // Write the 6 stored ones again into a leftover segment, as if the deletion had not happened.
    const { Journal } = await import('../store/journal.ts');
    const { encodeUsage } = await import('../domain/usage/codec.ts');
    const leftover = Journal.open(join(s.dir, 'leftover'), { fsync: false });
    for (const r of recs.slice(0, 6)) leftover.journal.append([encodeUsage(r)]);
    const before = await usageTotals(s.store.db, s.teamId);
    const second = await JournalSink.open(log, { write: s.write, dir: join(s.dir, 'leftover'), fsync: false }); // the 6 already stored
    const third = await JournalSink.open(log, { write: s.write, dir: s.dir, fsync: false }); // the 4 only journaled (and the 6 done ones)
    const after = await usageTotals(s.store.db, s.teamId);
    assert.equal(after.events - before.events, 4, 'only the 4 never stored are added');
    assert.equal(after.requests, after.events, 'no request twice');
    assert.equal(after.chargedRequests - before.chargedRequests, 4);
    // Every event points at the charge that covers it, and every charge is its events' sum.
    assert.equal(await unbalancedCharges(s.store.db, s.teamId), 0);
    assert.equal(second.stats().replayed, 6);
    assert.equal(third.stats().replayed, 10, "the 6 done lines of the still-open segment come back too, and are skipped");
    await second.close();
    await third.close();
    await first.close(); // its timer; it finds everything stored already
    assert.equal((await usageTotals(s.store.db, s.teamId)).events - before.events, 4);
  } finally {
    await s.close();
  }
});

test('a line that cannot be read is kept in its segment at replay; the others are stored', async () => {
  const s = await setup();
  try {
    const { Journal } = await import('../store/journal.ts');
    const { encodeUsage } = await import('../domain/usage/codec.ts');
    const recs = Array.from({ length: 3 }, s.rec);
    const left = Journal.open(s.dir, { fsync: false }); // what a killed process left: two good lines around a broken one
    left.journal.append([encodeUsage(recs[0]!), '{"requestId": "req_torn", "promptTok', encodeUsage(recs[1]!)]);
    left.journal.append([encodeUsage(recs[2]!)]);
    const before = await usageTotals(s.store.db, s.teamId);
    const sink = await JournalSink.open(log, { write: s.write, dir: s.dir, fsync: false });
    const after = await usageTotals(s.store.db, s.teamId);
    assert.equal(after.events - before.events, 3, 'every readable line is stored');
    assert.equal(sink.stats().failed, 1);
    await sink.close();
    const kept = readdirSync(s.dir).map((f) => readFileSync(join(s.dir, f), 'utf8')).join('');
    assert.match(kept, /req_torn/, 'the unreadable line stays on disk for the next start');
  } finally {
    await s.close();
  }
});

test('past maxLag a record waits until the database has caught up (backpressure)', async () => {
  const s = await setup();
  try {
    const sink = await JournalSink.open(log, { write: s.write, dir: s.dir, fsync: false, maxLag: 5, maxDelayMs: 10_000 });
    for (let i = 0; i < 5; i++) await sink.record(s.rec()); // one turn each: five appends
    assert.equal(sink.stats().lag, 5);
    assert.equal(sink.stats().items, 0, 'nothing stored yet: the writer waits for more (maxDelayMs)');
    await sink.record(s.rec()); // the 6th waits for the database
    assert.ok((sink.stats().items ?? 0) > 0, 'the 6th record resolved only after the writer stored a batch');
    assert.ok((sink.stats().lag ?? 0) <= 5);
    await sink.close();
  } finally {
    await s.close();
  }
});
