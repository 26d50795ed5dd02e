// Every job type of the areas has one handler (src/areas.ts names each area's): a built app
// runs them all, a type handled twice is refused at start, and a handler or an enqueue whose
// payload is not its type's does not compile (the @ts-expect-error lines fail `tsc --noEmit`
// the day they stop being errors).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { buildTestApp } from '../../test/helpers/app.ts';
import { ManualClock } from '../lib/clock.ts';
import { ChangeBus } from '../domain/changes.ts';
import { defineJob } from '../domain/jobs/job-type.ts';
import { MEDIA_JOBS } from '../domain/media/jobs.ts';
import { JOB_TYPES } from '../areas.ts';
import { JobRunner } from './runner.ts';
import { handles } from './handlers.ts';

const runner = () => new JobRunner({ ctx: { db: undefined as never, clock: new ManualClock(), changes: new ChangeBus() } });

test('a built app runs a handler for every job type of the areas, and the domain enqueues through the runner', async () => {
  const t = await buildTestApp();
  try {
    assert.deepEqual(t.services.jobs.registered(), JOB_TYPES.map((j) => j.name));
    assert.ok(JOB_TYPES.length >= 16, `the areas' job types (${JOB_TYPES.length})`);
    assert.equal(t.services.ctx.jobs, t.services.jobs);
  } finally {
    await t.close();
  }
});

test('an area\'s job is made from the part of the graph it names; a type handled twice is refused', () => {
  const seen: string[] = [];
  const job = handles(MEDIA_JOBS.sweep, (s: { tag: string }) => ({ handler: async () => { seen.push(s.tag); } }));
  const r = runner();
  r.handle(job, { tag: 'graph' });
  assert.deepEqual(r.registered(), ['media.tasks.sweep']);
  assert.throws(() => r.handle(job, { tag: 'again' }), /job type media\.tasks\.sweep is registered twice/);
});

test('a handler or an enqueue whose payload is not its type\'s does not compile, and the runner refuses the payload', async () => {
  const t = defineJob({ name: 'test.typed', payload: Type.Object({ n: Type.Integer() }), concurrency: 1, leaseMs: 1000, retry: { maxAttempts: 1, backoff: { firstMs: 1, factor: 1, maxMs: 1 } } });
  handles(t, () => ({ handler: async (job) => { job.payload.n satisfies number; } }));
  // @ts-expect-error: the media task's payload has a taskId, no `n`
  handles(MEDIA_JOBS.task, () => ({ handler: async (job: { payload: { n: number } }) => { job.payload.n satisfies number; } }));
  const r = runner();
  // @ts-expect-error: the job names a part of the graph ({ tag }) the call does not give
  r.handle(handles(t, (s: { tag: string }) => ({ handler: async () => { void s; } })), {});
  assert.deepEqual(r.registered(), ['test.typed']);
  // @ts-expect-error: `n` is an integer
  await assert.rejects(r.enqueue(t, { n: 'x' }), /job test\.typed: payload \/n must be integer/);
});
