// GET /v3/async/task-result?task_id=: an async task's status and outputs (signed, expiring
// links); another team's task, or an unknown id, is TASK_NOT_FOUND.
import { Type } from 'typebox';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { TaskResult } from './schemas.ts';
import { getTaskResult } from '../../../domain/media/tasks.ts';
import type { Media } from '../../../domain/media/context.ts';

export default function getTaskResultRoute(app: App, s: { media: Media }): void {
  app.get('/v3/async/task-result', {
    config: { family: 'media', auth: { kind: 'key', capability: 'callModels' } },
    schema: {
      tags: ['media'], summary: 'Get an async task\'s result', security: KeyBearer,
      querystring: Type.Object({ task_id: Type.String({ minLength: 1, maxLength: 100 }) }),
      response: { 200: TaskResult, ...errors(400, 401, 403, 404) },
    },
  }, async (req) => getTaskResult(s.media.tasks, principalOf(req), (req.query as { task_id: string }).task_id));
}
