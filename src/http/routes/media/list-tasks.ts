// GET /v3/async/tasks (Gantry's extension; the interface has only task-result by id): the
// team's async tasks, newest first, keyset paged (`next_cursor`), optionally of one status;
// each is its task result plus created_at / ended_at and what it was asked for, `input`
// (docs/compat-decisions.md).
import { Type } from 'typebox';
import { listMediaTasks, DEFAULT_TASK_PAGE, MAX_TASK_PAGE } from '../../../domain/media/tasks.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { TaskResult, TaskStatus } from './schemas.ts';
import type { Media } from '../../../domain/media/context.ts';

export default function listTasks(app: App, s: { media: Media }): void {
  app.get('/v3/async/tasks', {
    config: { family: 'media', auth: { kind: 'key', capability: 'callModels' } },
    schema: {
      tags: ['media'], summary: 'The team\'s async tasks, newest first (Gantry\'s extension)', security: KeyBearer,
      querystring: Type.Object({
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TASK_PAGE, description: `tasks per page, default ${DEFAULT_TASK_PAGE}` })),
        cursor: Type.Optional(Type.String({ maxLength: 64, description: 'next_cursor of the previous page; empty: from the newest' })),
        status: Type.Optional(TaskStatus),
      }),
      response: {
        200: Type.Object({
          tasks: Type.Array(Type.Object({
            ...TaskResult.properties,
            created_at: Type.Integer({ description: 'Unix seconds' }),
            ended_at: Type.Union([Type.Integer(), Type.Null()], { description: 'Unix seconds; null while the task runs' }),
            input: Type.Union([
              Type.Object({ model_name: Type.String(), prompt: Type.String(), negative_prompt: Type.String() }, { description: 'txt2img: the checkpoint and prompts asked for' }),
              Type.Object({ voice_id: Type.String(), language: Type.String(), texts: Type.Array(Type.String()) }, { description: 'txt2speech: the voice and texts asked for' }),
            ], { description: 'what the task was asked for' }),
          })),
          pagination: Type.Object({ next_cursor: Type.String({ description: 'empty on the last page' }) }),
        }),
        ...errors(400, 401, 403),
      },
    },
  }, async (req) => listMediaTasks(s.media.tasks, principalOf(req), req.query as { limit?: number; cursor?: string; status?: string }));
}
