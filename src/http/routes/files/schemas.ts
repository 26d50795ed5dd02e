// Shapes of the Files API (spec/compat.md, files row of the LLM table).
import { Type } from 'typebox';

export const FileObject = Type.Object({
  id: Type.String(),
  object: Type.Literal('file'),
  bytes: Type.Integer(),
  created_at: Type.Integer({ description: 'Unix seconds' }),
  filename: Type.String(),
  purpose: Type.String({ description: 'batch (uploaded) or batch_output (written by a batch)' }),
  expires_at: Type.Integer({ description: 'Unix seconds; the file is removed then' }),
  metadata: Type.Object({ total_requests: Type.Integer({ description: 'requests (non-blank lines) of a batch file' }) }),
});

export const FileIdParams = Type.Object({ file_id: Type.String({ minLength: 1, maxLength: 64 }) });

export const summary = (base: string, what: string) => (base === '/openai/v1' ? what : `${what} (alias of /openai/v1)`);
