// Shapes of the Files API in its two renderings: the file record of spec/compat.md (files row
// of the LLM table) on the interface's bases, OpenAI's file object on /v1 (openai/bases.ts).
import { Type, type TSchema } from 'typebox';
import { openaiFileView, type FileList, type FileObject as File } from '../../../domain/files/files.ts';
import type { Rendering } from '../openai/bases.ts';

/** The members both renderings share. */
const FileMembers = {
  id: Type.String(),
  object: Type.Literal('file'),
  bytes: Type.Integer(),
  created_at: Type.Integer({ description: 'Unix seconds' }),
  filename: Type.String(),
  purpose: Type.String({ description: 'batch (uploaded) or batch_output (written by a batch)' }),
  expires_at: Type.Integer({ description: 'Unix seconds; the file is removed then' }),
};

export const FileObject = Type.Object({
  ...FileMembers,
  metadata: Type.Object({ total_requests: Type.Integer({ description: 'requests (non-blank lines) of a batch file' }) }),
});

/** OpenAI's file object (the openai package's `FileObject`). */
export const OpenAIFileObject = Type.Object({
  ...FileMembers,
  status: Type.Literal('processed', { description: 'a stored file was checked as it was uploaded' }),
  status_details: Type.Null(),
});

const ListMembers = {
  object: Type.Literal('list'), first_id: Type.Union([Type.String(), Type.Null()]), last_id: Type.Union([Type.String(), Type.Null()]), has_more: Type.Boolean(),
};

const SHAPES: Record<Rendering, { file: TSchema; list: TSchema; view: (f: File) => unknown; page: (p: FileList) => unknown }> = {
  // compat.md: `{code, message, data}`; OpenAI's list members are added so OpenAI SDKs page it
  // (`has_more`, `after` = the last id). Decision: code "200", message "success".
  interface: {
    file: FileObject, list: Type.Object({ code: Type.String(), message: Type.String(), data: Type.Array(FileObject), ...ListMembers }),
    view: (f) => f, page: (p) => ({ code: '200', message: 'success', ...p }),
  },
  // OpenAI's list of files, as its SDKs page it
  openai: {
    file: OpenAIFileObject, list: Type.Object({ data: Type.Array(OpenAIFileObject), ...ListMembers }),
    view: openaiFileView, page: (p) => ({ ...p, data: p.data.map(openaiFileView) }),
  },
};

/** A file, and a page of them, as a base's rendering shows them, with the schemas of both. */
export const fileShapes = (rendering: Rendering) => SHAPES[rendering];

export const FileIdParams = Type.Object({ file_id: Type.String({ minLength: 1, maxLength: 64 }) });
