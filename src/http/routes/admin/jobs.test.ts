// GET /admin/v1/jobs: what an operator sees of the durable jobs, failed ones with their error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { buildTestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { defineJob } from '../../../domain/jobs/job-type.ts';

test('failed jobs are listed newest first with their last error, in pages', async () => {
  const t = await buildTestApp();
  try {
    const admin = as(t.app, t.creds.adminToken);
    const flaky = defineJob({
      name: 'test.flaky', payload: Type.Object({ n: Type.Integer() }), concurrency: 2, leaseMs: 10_000,
      retry: { maxAttempts: 1, backoff: { firstMs: 1, factor: 1, maxMs: 1 } },
    });
    t.services.jobs.register(flaky, async (job) => {
      if (job.payload.n > 0) throw new Error(`webhook answered 500 for ${job.payload.n}`);
    });
    const ids: string[] = [];
    for (const n of [0, 1, 2, 3]) {
      ids.push((await t.services.jobs.enqueue(flaky, { n })).id);
      t.clock.advance(1);
    }
    await t.services.jobs.runDue();

    const p1 = await admin.get('/admin/v1/jobs', { state: 'failed', limit: 2 });
    assert.equal(p1.status, 200, JSON.stringify(p1.body));
    assert.deepEqual(p1.body.jobs.map((j: any) => j.id), [ids[3], ids[2]]);
    assert.equal(p1.body.next, ids[2]);
    const j = p1.body.jobs[0];
    assert.equal(j.name, 'test.flaky');
    assert.equal(j.state, 'failed');
    assert.deepEqual(j.payload, { n: 3 });
    assert.equal(j.attempts, 1);
    assert.equal(j.maxAttempts, 1, 'the limit of the type this process runs');
    assert.equal(j.lastError, 'Error: webhook answered 500 for 3');
    assert.equal(j.finishedAtMs, t.clock.nowMs());
    const p2 = await admin.get('/admin/v1/jobs', { state: 'failed', limit: 2, before: p1.body.next });
    assert.deepEqual(p2.body.jobs.map((x: any) => x.id), [ids[1]]);
    assert.equal(p2.body.next, null);

    const done = await admin.get('/admin/v1/jobs', { state: 'completed', name: 'test.flaky' });
    assert.deepEqual(done.body.jobs.map((x: any) => x.id), [ids[0]]);
    // the recurring jobs of the catalogue are there, queued, once each
    await t.services.compute.reconcile();
    const queued = await admin.get('/admin/v1/jobs', { state: 'queued' });
    assert.deepEqual(queued.body.jobs.map((x: any) => x.name).sort(), ['accounts.prune', 'batches.expire', 'compute.reconcile', 'compute.sample', 'files.expire', 'jobs.prune', 'media.tasks.sweep', 'responses.prune', 'serverless.reconcile', 'webhooks.prune', 'webhooks.watch']);
    assert.equal(queued.body.jobs.find((x: any) => x.name === 'compute.reconcile').maxAttempts, null);

    // a job of a type this process runs none of (another version's, say): no limit to tell
    const elsewhere = defineJob({ ...flaky, name: 'test.elsewhere' });
    await t.services.jobs.enqueue(elsewhere, { n: 1 });
    const unknown = await admin.get('/admin/v1/jobs', { name: 'test.elsewhere' });
    assert.deepEqual(unknown.body.jobs.map((x: any) => [x.state, x.maxAttempts]), [['queued', null]]);

    const bad = await admin.get('/admin/v1/jobs', { state: 'broken' });
    assert.equal(bad.status, 400);
    assert.equal((await as(t.app, 'sk_nope').get('/admin/v1/jobs')).status, 401);
  } finally {
    await t.close();
  }
});
