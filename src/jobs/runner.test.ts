// The job runner on the real store (PGlite, or PostgreSQL with TEST_DATABASE_URL): time is a
// ManualClock and runDue() is a worker's pass, so retries, backoff and leases running out
// are driven by advancing the clock, never by sleeping. The tests share one store (a fresh
// copy costs seconds); each uses job names of its own, and a runner claims only its names.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { openTestStore } from '../../test/helpers/app.ts';
import { openStore, type Store } from '../store/db.ts';
import { ManualClock, systemClock, type Clock } from '../lib/clock.ts';
import { standaloneCtx } from '../domain/context.ts';
import { claimDueJobs, countJobs, endLease, findJob, type JobRow } from '../store/jobs.ts';
import { claimSetting, getSetting } from '../store/settings.ts';
import { defineJob, type JobType } from '../domain/jobs/job-type.ts';
import type { JobContext } from '../domain/jobs/queue.ts';
import { JobRunner, LeaseLostError } from './runner.ts';

const Item = Type.Object({ n: Type.Integer() }, { additionalProperties: false });

let names = 0;

/** A job type with a name no other test uses. */
function jobType(over: Partial<JobType<typeof Item>> = {}): JobType<typeof Item> {
  return defineJob({
    payload: Item, concurrency: 4, leaseMs: 30_000,
    retry: { maxAttempts: 3, backoff: { firstMs: 1000, factor: 2, maxMs: 10_000 } }, ...over,
    name: `${over.name ?? 'test.item'}.${++names}`,
  });
}

let shared: Promise<Store> | undefined;
after(async () => { if (shared !== undefined) await (await shared).close(); });

async function setup(clock: Clock = new ManualClock()) {
  shared ??= openTestStore();
  const store = await shared;
  const ctx = standaloneCtx(store.db, clock);
  const runners: JobRunner[] = [];
  const runner = (pollMs = 20) => {
    const r = new JobRunner({ ctx, pollMs });
    runners.push(r);
    return r;
  };
  return {
    store, ctx, clock: clock as ManualClock, runner,
    job: (id: string) => findJob(store.db, id) as Promise<JobRow>,
    close: async () => {
      for (const r of runners) await r.stop();
    },
  };
}

/** A promise and its resolver: a handler waits on it, the test decides when it ends. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => { open = r; });
  return { wait, open };
}

test('a job is enqueued, run once with its payload, and kept as completed', { timeout: 60_000 }, async () => {
  const s = await setup();
  try {
    const r = s.runner();
    const seen: number[] = [];
    const t = jobType();
    r.register(t, async (job) => { seen.push(job.payload.n); });
    const { id, created } = await r.enqueue(t, { n: 7 });
    assert.equal(created, true);
    assert.equal((await s.job(id)).state, 'queued');
    assert.equal(await r.runDue(), 1);
    assert.deepEqual(seen, [7]);
    const row = await s.job(id);
    assert.equal(row.state, 'completed');
    assert.equal(row.attempts, 1);
    assert.equal(row.finishedAtMs, s.clock.nowMs());
    assert.equal(await r.runDue(), 0, 'never run twice');
    // a delayed job waits for the clock
    const later = await r.enqueue(t, { n: 8 }, { delayMs: 5000 });
    assert.equal(await r.runDue(), 0);
    s.clock.advance(5000);
    assert.equal(await r.runDue(), 1);
    assert.equal((await s.job(later.id)).state, 'completed');
  } finally {
    await s.close();
  }
});

test('payloads are checked against the catalogue when enqueued and when read back', { timeout: 60_000 }, async () => {
  const s = await setup();
  try {
    const r = s.runner();
    const t = jobType();
    let ran = 0;
    r.register(t, async () => { ran++; });
    await assert.rejects(r.enqueue(t, { n: 'x' } as never), /payload \/n must be integer/);
    await assert.rejects(r.enqueue(t, { n: 1, extra: true } as never), /payload/);
    const { id } = await r.enqueue(t, { n: 1 });
    await s.store.db.execute(`update jobs set payload = '{"n": "one"}'::jsonb where id = '${id}'` as never);
    assert.equal(await r.runDue(), 1);
    assert.equal(ran, 0, 'the handler never sees a payload that does not match');
    const row = await s.job(id);
    assert.equal(row.state, 'failed');
    assert.match(row.lastError!, /stored payload does not match the catalogue: \/n must be integer/);
  } finally {
    await s.close();
  }
});

test('a failed job is retried with backoff on the clock, then completes', { timeout: 60_000 }, async () => {
  const s = await setup();
  try {
    const r = s.runner();
    const t = jobType();
    const attempts: number[] = [];
    r.register(t, async (job) => {
      attempts.push(job.attempt);
      if (job.attempt < 3) throw new Error(`upstream said no (${job.attempt})`);
    });
    const { id } = await r.enqueue(t, { n: 1 });
    await r.runDue();
    let row = await s.job(id);
    assert.equal(row.state, 'queued');
    assert.equal(row.attempts, 1);
    assert.equal(row.lastError, 'Error: upstream said no (1)');
    assert.equal(row.dueAtMs, s.clock.nowMs() + 1000, 'first backoff');
    s.clock.advance(999);
    assert.equal(await r.runDue(), 0);
    s.clock.advance(1);
    assert.equal(await r.runDue(), 1);
    row = await s.job(id);
    assert.equal(row.dueAtMs, s.clock.nowMs() + 2000, 'doubled');
    s.clock.advance(2000);
    assert.equal(await r.runDue(), 1);
    row = await s.job(id);
    assert.equal(row.state, 'completed');
    assert.equal(row.attempts, 3);
    assert.deepEqual(attempts, [1, 2, 3]);
  } finally {
    await s.close();
  }
});

test('after the last attempt a job is kept as failed with its error', { timeout: 60_000 }, async () => {
  const s = await setup();
  try {
    const r = s.runner();
    const t = jobType({ retry: { maxAttempts: 2, backoff: { firstMs: 100, factor: 1, maxMs: 100 } } });
    let ran = 0;
    r.register(t, async () => {
      ran++;
      throw new Error(`failure ${ran}`);
    });
    const { id } = await r.enqueue(t, { n: 1 });
    await r.runDue();
    s.clock.advance(100);
    await r.runDue();
    const row = await s.job(id);
    assert.equal(row.state, 'failed');
    assert.equal(row.attempts, 2);
    assert.equal(row.lastError, 'Error: failure 2');
    assert.equal(row.finishedAtMs, s.clock.nowMs());
    s.clock.advance(60_000);
    assert.equal(await r.runDue(), 0);
    assert.equal(ran, 2);
  } finally {
    await s.close();
  }
});

test('a singleton is queued or running at most once per key', { timeout: 60_000 }, async () => {
  const s = await setup();
  try {
    const r = s.runner();
    const t = jobType({ name: 'test.singleton', singleton: true, singletonKey: (p) => `k${p.n % 2}` });
    const g = gate();
    const started = gate();
    let ran = 0;
    r.register(t, async () => {
      ran++;
      started.open();
      await g.wait;
    });
    const a = await r.enqueue(t, { n: 1 });
    const b = await r.enqueue(t, { n: 3 });
    assert.equal(b.id, a.id);
    assert.equal(b.created, false);
    const c = await r.enqueue(t, { n: 2 });
    assert.equal(c.created, true, 'another key');
    const running = r.runDue();
    // while it runs, it still counts
    await started.wait;
    assert.equal((await r.enqueue(t, { n: 5 })).id, a.id);
    g.open();
    assert.equal(await running, 2);
    assert.equal(ran, 2);
    // once it ended, the key is free again
    const d = await r.enqueue(t, { n: 1 });
    assert.equal(d.created, true);
    assert.notEqual(d.id, a.id);
  } finally {
    await s.close();
  }
});

test('the lease of a worker that died runs out and another runner takes the job over', { timeout: 60_000 }, async () => {
  const s = await setup();
  try {
    const t = jobType({ leaseMs: 10_000 });
    const alive = s.runner();
    const seen: JobContext<{ n: number }>[] = [];
    alive.register(t, async (job) => { seen.push(job); });
    const { id } = await alive.enqueue(t, { n: 1 });
    // Another process leased it and died (kill -9): nothing ends its lease.
    const [dead] = await claimDueJobs(s.store.db, 'dead-host/1/x', s.clock.nowMs(), [{ name: t.name, n: 1, leaseMs: t.leaseMs }]);
    assert.equal(dead!.id, id);
    s.clock.advance(9_999);
    assert.equal(await alive.runDue(), 0, 'a live lease is left alone');
    s.clock.advance(1);
    assert.equal(await alive.runDue(), 1);
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.attempt, 2, 'the dead start counts');
    const row = await s.job(id);
    assert.equal(row.state, 'completed');
    assert.equal(row.leaseOwner, alive.owner);
    // the dead worker coming back late changes nothing
    const late = await endLease(s.store.db, { id, owner: 'dead-host/1/x', attempt: 1 }, { state: 'failed', error: 'late' }, s.clock.nowMs());
    assert.equal(late, false);
    assert.equal((await s.job(id)).state, 'completed');
  } finally {
    await s.close();
  }
});

test('a worker that died on the last attempt leaves the job failed, not run again', { timeout: 60_000 }, async () => {
  const s = await setup();
  try {
    const t = jobType({ leaseMs: 1000, retry: { maxAttempts: 1, backoff: { firstMs: 1, factor: 1, maxMs: 1 } } });
    const r = s.runner();
    let ran = 0;
    r.register(t, async () => { ran++; });
    const { id } = await r.enqueue(t, { n: 1 });
    await claimDueJobs(s.store.db, 'dead-host/2/x', s.clock.nowMs(), [{ name: t.name, n: 1, leaseMs: t.leaseMs }]);
    s.clock.advance(1000);
    assert.equal(await r.runDue(), 1);
    assert.equal(ran, 0);
    const row = await s.job(id);
    assert.equal(row.state, 'failed');
    assert.match(row.lastError!, /no attempt left: the lease of dead-host\/2\/x ran out/);
  } finally {
    await s.close();
  }
});

test('a running job renews its lease, so a slow job is not taken over', { timeout: 60_000 }, async () => {
  const s = await setup();
  try {
    const t = jobType({ leaseMs: 9000 });
    const a = s.runner();
    const b = s.runner();
    const g = gate();
    const started = gate();
    const attempts: number[] = [];
    a.register(t, async (job) => {
      attempts.push(job.attempt);
      started.open();
      await g.wait;
    });
    b.register(t, async (job) => { attempts.push(job.attempt); });
    const { id } = await a.enqueue(t, { n: 1 });
    const slow = a.runDue();
    await started.wait; // a holds the lease (the row says running a little earlier)
    s.clock.advance(6000);
    await a.renewLeases();
    s.clock.advance(6000); // past the first lease, inside the renewed one
    assert.equal(await b.runDue(), 0);
    g.open();
    await slow;
    assert.deepEqual(attempts, [1]);
    assert.equal((await s.job(id)).state, 'completed');
  } finally {
    await s.close();
  }
});

test('completeWith commits the handler\'s writes with the completion, and neither once the lease is lost', { timeout: 60_000 }, async () => {
  const s = await setup();
  try {
    const t = jobType({ leaseMs: 5000 });
    const a = s.runner();
    const b = s.runner();
    const g = gate();
    const started = gate();
    const outcome: unknown[] = [];
    a.register(t, async (job) => {
      started.open();
      await g.wait;
      try {
        await job.completeWith(async (tx) => { await claimSetting(tx, `effect:${job.id}:a`, job.attempt); });
        outcome.push('completed');
      } catch (e) {
        outcome.push(e);
        throw e;
      }
    });
    b.register(t, async (job) => {
      await job.completeWith(async (tx) => { await claimSetting(tx, `effect:${job.id}:b`, job.attempt); });
    });
    const { id } = await a.enqueue(t, { n: 1 });
    const slow = a.runDue();
    await started.wait;
    s.clock.advance(5000); // a's lease runs out (no renewal) and b takes the job over
    assert.equal(await b.runDue(), 1);
    g.open();
    await slow;
    assert.ok(outcome[0] instanceof LeaseLostError, String(outcome[0]));
    assert.equal(await getSetting(s.store.db, `effect:${id}:a`), undefined, 'rolled back');
    assert.equal(await getSetting(s.store.db, `effect:${id}:b`), 2);
    const row = await s.job(id);
    assert.equal(row.state, 'completed');
    assert.equal(row.attempts, 2);
  } finally {
    await s.close();
  }
});

test('a recurring job runs every interval on the clock, never ends, and counts failures in a row', { timeout: 60_000 }, async () => {
  const s = await setup();
  try {
    const r = s.runner();
    const t = jobType({ name: 'test.every', payload: Type.Object({}) as never, everyMs: 1000 });
    let fail = false;
    let ran = 0;
    r.register(t, async () => {
      ran++;
      if (fail) throw new Error('database away');
    });
    assert.equal(await r.runDue(), 1, 'the row is created due at once');
    assert.equal(await r.runDue(), 0);
    s.clock.advance(999);
    assert.equal(await r.runDue(), 0);
    s.clock.advance(1);
    assert.equal(await r.runDue(), 1);
    assert.equal(await r.runNow(t.name), 1, 'run on demand, due or not');
    fail = true;
    s.clock.advance(1000);
    await r.runDue();
    s.clock.advance(1000);
    await r.runDue();
    let [row] = await s.store.db.execute(`select * from jobs where name = '${t.name}'` as never).then((x: any) => x.rows);
    assert.equal(row.state, 'queued');
    assert.equal(row.attempts, 2);
    assert.equal(row.last_error, 'Error: database away');
    assert.equal(Number(row.due_at_ms), s.clock.nowMs() + 2000, 'backoff beyond the interval');
    fail = false;
    s.clock.advance(2000);
    await r.runDue();
    [row] = await s.store.db.execute(`select * from jobs where name = '${t.name}'` as never).then((x: any) => x.rows);
    assert.equal(row.attempts, 0);
    assert.equal(row.last_error, null);
    assert.equal(ran, 6);
    assert.deepEqual(await countJobs(s.store.db, t.name), [{ name: t.name, state: 'queued', n: 1 }], 'one row, always');
  } finally {
    await s.close();
  }
});

test('per-process concurrency: a type runs at most `concurrency` jobs at once', { timeout: 60_000 }, async () => {
  const s = await setup();
  try {
    const r = s.runner();
    const t = jobType({ concurrency: 2 });
    let now = 0;
    let most = 0;
    r.register(t, async () => {
      now++;
      most = Math.max(most, now);
      await new Promise((res) => setImmediate(res));
      now--;
    });
    for (let i = 0; i < 7; i++) await r.enqueue(t, { n: i });
    assert.equal(await r.runDue(), 7);
    assert.equal(most, 2);
  } finally {
    await s.close();
  }
});

test('stopping a runner queues a job that gives up again without counting the start', { timeout: 60_000 }, async () => {
  const s = await setup();
  try {
    const r = s.runner();
    const t = jobType();
    const started = gate();
    r.register(t, (job) => new Promise((_res, rej) => {
      job.signal.addEventListener('abort', () => rej(new Error('aborted')));
      started.open();
    }));
    const { id } = await r.enqueue(t, { n: 1 });
    const running = r.runDue();
    await started.wait;
    await r.stop();
    await running;
    const row = await s.job(id);
    assert.equal(row.state, 'queued');
    assert.equal(row.attempts, 0);
    assert.equal(row.dueAtMs, s.clock.nowMs());
  } finally {
    await s.close();
  }
});

test('two runners on one database never run the same job twice', { timeout: 120_000 }, async () => {
  // Background loops on the system clock, polling every 20 ms, on two connections to the same
  // database (PostgreSQL: two pools; PGlite: its one connection).
  const s = await setup(systemClock);
  let second: Store | undefined;
  try {
    const N = 300;
    const t = jobType({ concurrency: 4 });
    second = s.store.kind === 'postgres' ? await openStore({ databaseUrl: s.store.databaseUrl!, poolSize: 4 }) : s.store;
    const a = s.runner();
    const b = new JobRunner({ ctx: standaloneCtx(second.db, systemClock), pollMs: 20 });
    const runs = new Map<string, number>();
    const by = { a: 0, b: 0 };
    let done!: () => void;
    const all = new Promise<void>((res) => { done = res; });
    const handler = (who: 'a' | 'b') => async (job: JobContext<{ n: number }>) => {
      runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
      by[who]++;
      if (by.a + by.b >= N) done();
    };
    a.register(t, handler('a'));
    b.register(t, handler('b'));
    a.start();
    b.start();
    for (let i = 0; i < N; i++) await (i % 2 ? a : b).enqueue(t, { n: i });
    await all;
    await a.stop();
    await b.stop();
    assert.equal(runs.size, N);
    assert.deepEqual([...runs.values()].filter((n) => n !== 1), [], 'each job ran exactly once');
    assert.deepEqual(await countJobs(s.store.db, t.name), [{ name: t.name, state: 'completed', n: N }]);
    if (s.store.kind === 'postgres') assert.ok(by.a > 0 && by.b > 0, `both runners worked: ${JSON.stringify(by)}`);
  } finally {
    if (second && second !== s.store) await second.close();
    await s.close();
  }
});

test('in the background a backlog beyond the free slots is drained without waiting a poll interval per batch', { timeout: 60_000 }, async () => {
  // Polls a minute apart: only "the last claim filled a type's slots, claim again as one
  // frees" gets 40 jobs of a concurrency-4 type done before the test's timeout. Another
  // type is registered too (slots are counted per type). Enqueued through a runner that
  // does not run them (another replica): no in-process wake-up.
  const s = await setup(systemClock);
  try {
    const t = jobType({ concurrency: 4 });
    const other = jobType({ concurrency: 2 });
    const r = s.runner(60_000);
    const elsewhere = s.runner();
    let done!: () => void;
    const all = new Promise<void>((res) => { done = res; });
    let n = 0;
    r.register(t, async () => { if (++n === 40) done(); });
    r.register(other, async () => {});
    for (let i = 0; i < 40; i++) await elsewhere.enqueue(t, { n: i });
    r.start();
    await all;
    await r.stop(); // the last handler's completion
    assert.deepEqual(await countJobs(s.store.db, t.name), [{ name: t.name, state: 'completed', n: 40 }]);
  } finally {
    await s.close();
  }
});
