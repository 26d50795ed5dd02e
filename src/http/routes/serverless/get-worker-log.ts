import { workerLogReader } from '../../../domain/serverless/logs.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { GPU_BASE } from '../compute/schemas.ts';
import { LogQuery } from './schemas.ts';
import { answerLogs, LogAnswers, LogFollowers } from '../../log-answer.ts';
import type { Config } from '../../../config.ts';
import type { Serverless } from '../../../domain/serverless/service.ts';

export default function getWorkerLogRoute(app: App, s: { config: Config; serverless: Serverless }): void {
  const followers = LogFollowers.of(app, s.config.logFollowsPerTeam);
  app.get(`${GPU_BASE}/endpoint/worker/log`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'readCompute' }, docResponses: LogAnswers },
    schema: {
      tags: ['serverless'], summary: 'A worker\'s log (its workload\'s output): text, or SSE with sse=1; follow=1 streams until the worker ends', security: KeyBearer,
      querystring: LogQuery,
      response: errors(400, 401, 403, 429),
    },
  }, async (req, reply) => {
    const logs = await workerLogReader(s.serverless, principalOf(req).teamId, req.query.id);
    return answerLogs(followers, logs, req.query, req, reply);
  });
}
