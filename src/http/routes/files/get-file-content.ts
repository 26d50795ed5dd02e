import { Type } from 'typebox';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { OPENAI_BASES, summary } from '../openai/bases.ts';
import { FileIdParams } from './schemas.ts';
import { getFileContent, type Files } from '../../../domain/files/files.ts';

export default function getFileContentRoute(app: App, s: { files: Files }): void {
  for (const base of OPENAI_BASES) {
    app.get(`${base}/files/:file_id/content`, {
      config: {
        family: 'llm', auth: { kind: 'key', capability: 'callModels' },
        docResponses: { 200: { description: "the file's bytes (JSONL)", content: { 'application/octet-stream': { schema: Type.String({ format: 'binary' }) } } } },
      },
      schema: {
        tags: ['llm'], summary: summary(base, "Retrieve a file's content"), security: KeyBearer,
        params: FileIdParams,
        response: errors(400, 401, 403, 404),
      },
    }, async (req, reply) => {
      const { file, stream } = await getFileContent(s.files, principalOf(req), (req.params as { file_id: string }).file_id);
      // streamed from the blob store as it is read: the file is never held in memory
      reply.header('content-type', 'application/octet-stream');
      reply.header('content-length', String(file.bytes));
      reply.header('content-disposition', `attachment; filename="${file.filename.replace(/["\\]/g, '_').replace(/[^\x20-\x7e]/g, '_')}"`);
      return reply.send(stream);
    });
  }
}
