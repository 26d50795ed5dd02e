import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { OPENAI_BASES, renderingOf, summary } from '../openai/bases.ts';
import { FileIdParams, fileShapes } from './schemas.ts';
import { getFile, type Files } from '../../../domain/files/files.ts';

export default function getFileRoute(app: App, s: { files: Files }): void {
  for (const base of OPENAI_BASES) {
    const shapes = fileShapes(renderingOf(base));
    app.get(`${base}/files/:file_id`, {
      config: { family: 'llm', auth: { kind: 'key', capability: 'callModels' } },
      schema: {
        tags: ['llm'], summary: summary(base, 'Retrieve a file'), security: KeyBearer,
        params: FileIdParams,
        response: { 200: shapes.file, ...errors(400, 401, 403, 404) },
      },
    }, async (req) => shapes.view(await getFile(s.files, principalOf(req), (req.params as { file_id: string }).file_id)));
  }
}
