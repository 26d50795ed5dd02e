import { Type } from 'typebox';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { OPENAI_BASES, renderingOf, summary } from '../openai/bases.ts';
import { fileShapes } from './schemas.ts';
import { listFiles, type Files } from '../../../domain/files/files.ts';

export default function listFilesRoute(app: App, s: { files: Files }): void {
  for (const base of OPENAI_BASES) {
    const shapes = fileShapes(renderingOf(base));
    app.get(`${base}/files`, {
      config: { family: 'llm', auth: { kind: 'key', capability: 'callModels' } },
      schema: {
        tags: ['llm'], summary: summary(base, "List the team's files"), security: KeyBearer,
        querystring: Type.Object({
          purpose: Type.Optional(Type.Union([Type.Literal('batch'), Type.Literal('batch_output')])),
          limit: Type.Integer({ minimum: 1, maximum: 10_000, default: 10_000 }),
          after: Type.Optional(Type.String({ maxLength: 64 })),
          order: Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' }),
        }),
        response: { 200: shapes.list, ...errors(400, 401, 403) },
      },
    }, async (req) => {
      const q = req.query as { purpose?: string; limit: number; after?: string; order: 'asc' | 'desc' };
      return shapes.page(await listFiles(s.files, principalOf(req), q));
    });
  }
}
