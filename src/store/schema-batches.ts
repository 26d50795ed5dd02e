// Batch jobs (OpenAI-compatible Batches API, src/domain/batches): the batch row, and one row
// per input line. A line's state is the unit of crash safety: it moves pending → running →
// succeeded | failed | expired | cancelled with conditional updates, and its result is
// written in the transaction that completes its job (src/jobs/README.md), so after a crash
// no finished line runs again and none is lost.
import { bigint, integer, jsonb, text, index, pgTable, primaryKey } from 'drizzle-orm/pg-core';

const ms = (name: string) => bigint(name, { mode: 'number' });

export const batches = pgTable('batches', {
  id: text('id').primaryKey(),
  teamId: text('team_id').notNull(),
  /** who created it: the member, the key (lines are billed to it) and the member's role then */
  memberId: text('member_id').notNull(),
  keyId: text('key_id').notNull(),
  role: text('role').notNull(),
  /** /v1/chat/completions | /v1/completions */
  endpoint: text('endpoint').notNull(),
  inputFileId: text('input_file_id').notNull(),
  completionWindow: text('completion_window').notNull(),
  /** VALIDATING | PROGRESS | COMPLETED | FAILED | EXPIRED | CANCELLING | CANCELLED */
  status: text('status').notNull(),
  /** the model of every line (known once validated) */
  model: text('model'),
  /** {object: 'list', data: [{code, message, param, line}]} when validation failed */
  errors: jsonb('errors'),
  outputFileId: text('output_file_id').notNull().default(''),
  errorFileId: text('error_file_id').notNull().default(''),
  metadata: jsonb('metadata'),
  /** bumped on every change of status */
  version: integer('version').notNull().default(1),
  total: integer('total').notNull().default(0),
  completed: integer('completed').notNull().default(0),
  failed: integer('failed').notNull().default(0),
  /** lines in a final state (succeeded, failed, expired, cancelled): the batch ends when this reaches total */
  ended: integer('ended').notNull().default(0),
  /** the tokens of the lines answered, summed in the statement that ends each (OpenAI's batch `usage`) */
  inputTokens: bigint('input_tokens', { mode: 'number' }).notNull().default(0),
  cachedTokens: bigint('cached_tokens', { mode: 'number' }).notNull().default(0),
  outputTokens: bigint('output_tokens', { mode: 'number' }).notNull().default(0),
  reasoningTokens: bigint('reasoning_tokens', { mode: 'number' }).notNull().default(0),
  createdAtMs: ms('created_at_ms').notNull(),
  updatedAtMs: ms('updated_at_ms').notNull(),
  expiresAtMs: ms('expires_at_ms').notNull(),
  inProgressAtMs: ms('in_progress_at_ms'),
  finalizingAtMs: ms('finalizing_at_ms'),
  completedAtMs: ms('completed_at_ms'),
  failedAtMs: ms('failed_at_ms'),
  expiredAtMs: ms('expired_at_ms'),
  cancellingAtMs: ms('cancelling_at_ms'),
  cancelledAtMs: ms('cancelled_at_ms'),
}, (t) => [
  index('batches_team_id').on(t.teamId, t.id),
  index('batches_open_expiry').on(t.expiresAtMs),
]);

export const batchLines = pgTable('batch_lines', {
  batchId: text('batch_id').notNull(),
  /** 1-based line number in the input file */
  line: integer('line').notNull(),
  customId: text('custom_id').notNull(),
  /** the request body; cleared once the line ended */
  body: jsonb('body'),
  /** pending | running | succeeded | failed | expired | cancelled */
  state: text('state').notNull(),
  /** the line of the output or error file ({id, custom_id, response, error}) once ended */
  result: jsonb('result'),
  updatedAtMs: ms('updated_at_ms').notNull(),
}, (t) => [
  primaryKey({ columns: [t.batchId, t.line] }),
  index('batch_lines_state').on(t.batchId, t.state),
]);
