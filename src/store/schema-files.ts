// Files of the OpenAI-compatible Files API (src/domain/files): the record here, the bytes in
// the blob store under `blob_key`. The row is written before the bytes and removed after
// them, so a crash at any point leaves a row that the files.expire job finds (`sweep_at_ms`)
// and finishes: no blob is ever left without a row naming it.
import { pgTable, text, bigint, integer, index } from 'drizzle-orm/pg-core';

const ms = (name: string) => bigint(name, { mode: 'number' });

export const files = pgTable('files', {
  id: text('id').primaryKey(),
  teamId: text('team_id').notNull(),
  /** the member and key that uploaded it (null for files Gantry writes, e.g. batch outputs of a deleted key) */
  memberId: text('member_id'),
  keyId: text('key_id'),
  /** uploading (bytes being written) | ready | deleting (bytes being removed) */
  state: text('state').notNull(),
  filename: text('filename').notNull(),
  /** batch | batch_output */
  purpose: text('purpose').notNull(),
  bytes: ms('bytes').notNull().default(0),
  sha256: text('sha256').notNull().default(''),
  /** non-blank JSONL lines of a batch input (requests), or of a batch output */
  totalRequests: integer('total_requests').notNull().default(0),
  blobKey: text('blob_key').notNull(),
  createdAtMs: ms('created_at_ms').notNull(),
  expiresAtMs: ms('expires_at_ms').notNull(),
  /**
   * When files.expire must act on the row: a ready file's expiry, an upload's deadline (a
   * process that died mid-upload), or at once for a file being deleted. One column, one
   * index, one range scan.
   */
  sweepAtMs: ms('sweep_at_ms').notNull(),
}, (t) => [
  index('files_team_id').on(t.teamId, t.id),
  index('files_sweep').on(t.sweepAtMs),
]);
