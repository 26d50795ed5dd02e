import { Type } from 'typebox';
import { JOB_STATES } from '../../../jobs/states.ts';
import { errors, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import type { JobRunner } from '../../../jobs/runner.ts';

const JobView = Type.Object({
  id: Type.String(), name: Type.String(), state: Type.String({ description: JOB_STATES.join(' | ') }),
  payload: Type.Unknown(),
  attempts: Type.Integer({ description: 'starts so far (a start whose lease ran out counts); a recurring job: failures in a row' }),
  maxAttempts: Type.Union([Type.Integer(), Type.Null()], { description: "the job type's limit; null for a recurring job or a type this replica runs none of" }),
  singletonKey: Type.Union([Type.String(), Type.Null()]),
  leaseOwner: Type.Union([Type.String(), Type.Null()], { description: 'the runner (host/pid/random) holding it, or the last one that did' }),
  lastError: Type.Union([Type.String(), Type.Null()]),
  dueAtMs: Type.Integer({ description: 'queued: when it may start; running: when its lease runs out' }),
  createdAtMs: Type.Integer(), updatedAtMs: Type.Integer(), finishedAtMs: Type.Union([Type.Integer(), Type.Null()]),
});

export default function listJobsRoute(app: App, s: { jobs: JobRunner }): void {
  app.get('/admin/v1/jobs', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Durable jobs, newest first (e.g. state=failed: what gave up, with its last error)', security: OperatorBearer,
      querystring: Type.Object({
        state: Type.Optional(Type.Union(JOB_STATES.map((st) => Type.Literal(st)))),
        name: Type.Optional(Type.String({ maxLength: 255 })),
        before: Type.Optional(Type.String({ maxLength: 64, description: 'a job id: the page starts after it (the previous page\'s `next`)' })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
      }),
      response: {
        200: Type.Object({
          jobs: Type.Array(JobView),
          next: Type.Union([Type.String(), Type.Null()], { description: 'pass as `before` for the next page; null on the last' }),
        }),
        ...errors(400, 401),
      },
    },
  }, async (req) => {
    return s.jobs.list({ state: req.query.state, name: req.query.name, beforeId: req.query.before, limit: req.query.limit ?? 50 });
  });
}
