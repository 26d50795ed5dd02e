// The media model catalogue (GET /v3/model) and async media tasks (/v3/async; src/domain/media).
// A catalogue record is public (the operator's, `team_id` null) or private (a team's upload);
// its file is a blob under `blob_key`. Pages are keyset on `id` (an identity: records added
// while a client pages get larger ids, so no page repeats or skips one). A task is a durable
// job (media.task) whose row is the source of truth: its outputs are blobs named in `result`.
import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';

const ms = (name: string) => bigint(name, { mode: 'number' });

export const mediaModels = pgTable('media_models', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  /** null: a public record (the operator's); else the team that uploaded it */
  teamId: text('team_id'),
  name: text('name').notNull(),
  /** the file name */
  sdName: text('sd_name').notNull(),
  /** the name a task uses (txt2img model_name, loras[].model_name, embeddings[].model_name) */
  sdNameInApi: text('sd_name_in_api').notNull(),
  /** hex SHA-256 of the file ('' until hashed) */
  hashSha256: text('hash_sha256').notNull().default(''),
  /** checkpoint | lora | vae | controlnet | upscaler | textualinversion */
  type: text('type').notNull(),
  categories: jsonb('categories').$type<string[]>().notNull().default([]),
  tags: jsonb('tags').$type<string[]>().notNull().default([]),
  /** lower-case sd_name, name and tags, one per line: what filter.query searches */
  search: text('search').notNull(),
  coverUrl: text('cover_url').notNull().default(''),
  /** civitai | training | uploading */
  source: text('source').notNull(),
  baseModel: text('base_model').notNull().default(''),
  /** Standard | Inpainting */
  baseModelType: text('base_model_type').notNull().default('Standard'),
  isSdxl: boolean('is_sdxl').notNull().default(false),
  /** 0 unavailable (an upload not yet stored and hashed), 1 available */
  status: integer('status').notNull().default(0),
  blobKey: text('blob_key').notNull(),
  bytes: ms('bytes').notNull().default(0),
  createdAtMs: ms('created_at_ms').notNull(),
  updatedAtMs: ms('updated_at_ms').notNull(),
}, (t) => [
  uniqueIndex('media_models_public_name').on(t.sdNameInApi).where(sql`team_id is null`),
  uniqueIndex('media_models_team_name').on(t.teamId, t.sdNameInApi).where(sql`team_id is not null`),
  index('media_models_team_id').on(t.teamId, t.id),
  index('media_models_type_id').on(t.type, t.id),
  /** uploads not yet available (few at any time): what media.tasks.sweep looks at for stranded ones */
  index('media_models_unavailable').on(t.createdAtMs).where(sql`status = 0`),
]);

export const mediaTasks = pgTable('media_tasks', {
  /** the task_id */
  id: text('id').primaryKey(),
  teamId: text('team_id').notNull(),
  memberId: text('member_id').notNull(),
  keyId: text('key_id').notNull(),
  /** TXT_TO_IMG | TXT_TO_SPEECH */
  taskType: text('task_type').notNull(),
  /** TASK_STATUS_QUEUED | TASK_STATUS_PROCESSING | TASK_STATUS_SUCCEED | TASK_STATUS_FAILED */
  status: text('status').notNull(),
  /** why it failed ('' otherwise) */
  reason: text('reason').notNull().default(''),
  /** the request as checked (model resolved), and the client's `extra` (webhook, response types) */
  request: jsonb('request').notNull(),
  extra: jsonb('extra').notNull(),
  /** what admission held and success charges, micro-units */
  costMicro: bigint('cost_micro', { mode: 'bigint' }).notNull(),
  progressPercent: integer('progress_percent').notNull().default(0),
  /** outputs: [{kind: image|audio, key, type}] (blob keys; links are signed when read) */
  outputs: jsonb('outputs').$type<{ kind: 'image' | 'audio'; key: string; type: string }[]>().notNull().default([]),
  createdAtMs: ms('created_at_ms').notNull(),
  updatedAtMs: ms('updated_at_ms').notNull(),
  endedAtMs: ms('ended_at_ms'),
}, (t) => [
  index('media_tasks_team_id').on(t.teamId, t.id),
  /** tasks not ended: what the sweep looks at (few at any time) */
  index('media_tasks_open').on(t.createdAtMs).where(sql`ended_at_ms is null`),
  /** ended tasks by age: what the sweep removes once kept long enough */
  index('media_tasks_ended').on(t.endedAtMs).where(sql`ended_at_ms is not null`),
]);
