import { Type } from 'typebox';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { OPENAI_BASES, summary } from '../openai/bases.ts';
import { FileIdParams } from './schemas.ts';
import { deleteFile, type Files } from '../../../domain/files/files.ts';

export default function deleteFileRoute(app: App, s: { files: Files }): void {
  for (const base of OPENAI_BASES) {
    app.delete(`${base}/files/:file_id`, {
      config: { family: 'llm', auth: { kind: 'key', capability: 'callModels' } },
      schema: {
        tags: ['llm'], summary: summary(base, 'Delete a file'), security: KeyBearer,
        params: FileIdParams,
        response: { 200: Type.Object({ deleted: Type.Boolean(), id: Type.String(), object: Type.Literal('file') }), ...errors(400, 401, 403, 404) },
      },
    }, async (req) => deleteFile(s.files, principalOf(req), (req.params as { file_id: string }).file_id));
  }
}
