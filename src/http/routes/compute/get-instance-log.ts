import { Type } from 'typebox';
import { instanceLogReader } from '../../../domain/compute/log-reader.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { answerLogs, LogAnswers, LogFollowers, LogQueryFields } from '../../log-answer.ts';
import { GPU_BASE } from './schemas.ts';
import type { Compute } from '../../../domain/compute/compute.ts';
import type { Config } from '../../../config.ts';

export default function getInstanceLogRoute(app: App, s: { compute: Compute; config: Config }): void {
  const followers = LogFollowers.of(app, s.config.logFollowsPerTeam);
  app.get(`${GPU_BASE}/gpu/instance/log`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'readCompute' }, docResponses: LogAnswers },
    schema: {
      tags: ['gpu-instances'], security: KeyBearer,
      summary: 'An instance\'s log (status changes as [gantry] lines, and its workload\'s output): text, or SSE with sse=1; follow=1 streams until the instance is removed',
      querystring: Type.Object({ instanceId: Type.String({ minLength: 1 }), ...LogQueryFields }),
      response: errors(400, 401, 403, 429),
    },
  }, async (req, reply) => {
    const logs = await instanceLogReader(s.compute, principalOf(req).teamId, req.query.instanceId, (err) => req.log.warn({ err }, 'reading the workload\'s log failed'));
    return answerLogs(followers, logs, req.query, req, reply);
  });
}
