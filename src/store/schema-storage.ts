// Per-team storage quotas (src/domain/storage): the operator's overrides of the configured
// defaults (null: the default). The row is also the team's lock for uploads: an upload takes
// it (created on first use) to count the team's files or models and insert its own in one
// step, so concurrent uploads never pass a quota together.
import { pgTable, text, bigint, integer } from 'drizzle-orm/pg-core';

export const storageQuotas = pgTable('storage_quotas', {
  teamId: text('team_id').primaryKey(),
  filesMaxBytes: bigint('files_max_bytes', { mode: 'number' }),
  filesMaxCount: integer('files_max_count'),
  mediaMaxBytes: bigint('media_max_bytes', { mode: 'number' }),
  mediaMaxCount: integer('media_max_count'),
  updatedAtMs: bigint('updated_at_ms', { mode: 'number' }).notNull(),
});
