import { Type } from 'typebox';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App, type Services } from '../../types.ts';
import { OPENAI_BASES } from '../openai/bases.ts';
import { FileObject, summary } from './schemas.ts';
import { listFiles } from '../../../domain/files/files.ts';

// compat.md: `{code, message, data}`; OpenAI's list members are added so OpenAI SDKs page it
// (`has_more`, `after` = the last id). Decision: code "200", message "success".
const FileListBody = Type.Object({
  code: Type.String(), message: Type.String(), data: Type.Array(FileObject),
  object: Type.Literal('list'), first_id: Type.Union([Type.String(), Type.Null()]), last_id: Type.Union([Type.String(), Type.Null()]), has_more: Type.Boolean(),
});

export default function listFilesRoute(app: App, s: Pick<Services, 'files'>): void {
  for (const base of OPENAI_BASES) {
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
        response: { 200: FileListBody, ...errors(400, 401, 403) },
      },
    }, async (req) => {
      const q = req.query as { purpose?: string; limit: number; after?: string; order: 'asc' | 'desc' };
      const page = await listFiles(s.files, principalOf(req), q);
      return { code: '200', message: 'success', ...page };
    });
  }
}
