// The additive flush of endpoint metrics: two processes (two recorders on one store) count
// into the same endpoint-minute and flush in any order, at once or one after the other; the
// row holds the sum of both (peaks: the greater), and a flush that fails loses nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../lib/clock.ts';
import { openTestStore } from '../../../test/helpers/app.ts';
import { readEndpointMetrics } from '../../store/serverless-metrics.ts';
import type { Db } from '../../store/db.ts';
import { standaloneCtx } from '../context.ts';
import { EndpointMetrics, MINUTE_MS } from './metrics.ts';

test('two replicas flushing one endpoint-minute add up; a failed flush keeps its counts for the next', async () => {
  const store = await openTestStore();
  try {
    const clock = new ManualClock(Date.UTC(2026, 10, 15, 12, 0, 10));
    const minute = Math.floor(clock.nowMs() / MINUTE_MS) * MINUTE_MS;
    let failInserts = 0;
    // replica b's database refuses its first write (a dropped connection)
    const flaky = new Proxy(store.db, {
      get: (target, prop, receiver) => (prop === 'insert' && failInserts > 0 && failInserts--
        ? () => { throw new Error('connection lost'); }
        : Reflect.get(target, prop, receiver)),
    }) as Db;
    const a = new EndpointMetrics(standaloneCtx(store.db, clock));
    const b = new EndpointMetrics(standaloneCtx(flaky, clock));

    for (let i = 0; i < 7; i++) a.request('ep-x', true);
    a.request('ep-x', false);
    a.sample('ep-x', { waiting: 3, running: 1, starting: 1, desired: 2 });
    for (let i = 0; i < 5; i++) b.request('ep-x', true);
    b.sample('ep-x', { waiting: 1, running: 2, starting: 0, desired: 2 });
    await a.flush();
    failInserts = 1;
    await assert.rejects(b.flush(), /connection lost/);
    // counted after the failure: written together with what the failed flush kept
    b.request('ep-x', false);
    b.request('ep-other', true);
    // both flush at once, a twice (the second has nothing new)
    a.request('ep-x', true);
    await Promise.all([a.flush(), b.flush(), a.flush()]);

    const [row] = await readEndpointMetrics(store.db, 'ep-x', minute, minute, MINUTE_MS);
    assert.deepEqual(row, {
      bucketMs: minute, answered: 7 + 5 + 1, failed: 1 + 1, samples: 2, waitingSum: 4, waitingPeak: 3, runningSum: 3, startingSum: 1, desiredSum: 4,
    });
    assert.equal((await readEndpointMetrics(store.db, 'ep-other', minute, minute, MINUTE_MS))[0]?.answered, 1);

    // the next minute is a row of its own; by hour they sum again
    clock.advance(MINUTE_MS);
    b.request('ep-x', true);
    await b.close();
    const hour = await readEndpointMetrics(store.db, 'ep-x', minute, minute + MINUTE_MS, 3_600_000);
    assert.deepEqual(hour.map((r) => [r.answered, r.failed, r.samples]), [[14, 2, 2]]);
  } finally {
    await store.close();
  }
});
