// Every job of the catalogue has a handler: the map's type (JobHandlers) makes a missing one a
// compile error (the @ts-expect-error below fails `tsc --noEmit` the day it stops being one),
// the runner refuses a map that lost one through a cast, and a built app runs them all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp } from '../../test/helpers/app.ts';
import { ManualClock } from '../lib/clock.ts';
import { ChangeBus } from '../domain/changes.ts';
import { JOB_NAMES, type JobName } from '../domain/jobs/catalog.ts';
import { JobRunner, type JobHandlers } from './runner.ts';
import { buildHandlers, type HandlerDeps } from './handlers.ts';

function everyName(): JobHandlers {
  const noop = { handler: async () => {} };
  return Object.fromEntries(JOB_NAMES.map((n) => [n, noop])) as Record<JobName, typeof noop>;
}

test('a map of handlers that misses a catalogue entry does not compile, and the runner refuses it', () => {
  const { 'media.task': _missing, ...rest } = everyName();
  // @ts-expect-error: 'media.task' has no handler
  const incomplete: JobHandlers = rest;
  const runner = new JobRunner({ ctx: { db: undefined as never, clock: new ManualClock(), changes: new ChangeBus() } });
  assert.throws(() => runner.handleAll(incomplete), /job type media\.task has no handler/);
  const complete = new JobRunner({ ctx: { db: undefined as never, clock: new ManualClock(), changes: new ChangeBus() } });
  complete.handleAll(everyName());
  assert.deepEqual(complete.registered(), [...JOB_NAMES]);
});

test('a built app runs a handler for every job of the catalogue', async () => {
  const t = await buildTestApp();
  try {
    const registered = new Set(t.services.jobs.registered());
    assert.deepEqual(JOB_NAMES.filter((n) => !registered.has(n)), []);
    assert.equal(t.services.ctx.jobs, t.services.jobs, 'the domain enqueues through the runner');
  } finally {
    await t.close();
  }
});

test('the areas\' handlers make one map: a job handled by two areas is refused', () => {
  const noop = { handler: async () => {} };
  const deps = {} as HandlerDeps;
  const map = buildHandlers([{ name: 'a', jobs: () => ({ 'jobs.prune': noop }) }, { name: 'b' }, { name: 'c', jobs: () => ({ 'files.expire': noop }) }], deps);
  assert.deepEqual(Object.keys(map).sort(), ['files.expire', 'jobs.prune']);
  assert.throws(() => buildHandlers([{ name: 'a', jobs: () => ({ 'jobs.prune': noop }) }, { name: 'b', jobs: () => ({ 'jobs.prune': noop }) }], deps),
    /job type jobs\.prune has two handlers/);
});
