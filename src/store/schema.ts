// The tables every area shares (teams, members, keys, budgets, the ledger, models, quotas);
// an area's own are in schema-<area>.ts beside it. drizzle-kit reads them all
// (drizzle.config.ts: src/store/schema*.ts), so a new area's tables need no line here. Money
// columns are bigint micro-units (see src/lib/money.ts) unless the name says `Units`.
import { sql } from 'drizzle-orm';
import {
  pgTable, text, bigint, integer, boolean, jsonb, timestamp, primaryKey, uniqueIndex, index,
} from 'drizzle-orm/pg-core';

const micro = (name: string) => bigint(name, { mode: 'bigint' }).notNull().default(sql`0`);
const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull();

export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
});

export const teams = pgTable('teams', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  status: text('status').notNull().default('active'),
  tier: text('tier').notNull().default('T1'),
  creditLimitMicro: micro('credit_limit_micro'),
  cashMicro: micro('cash_micro'),
  voucherMicro: micro('voucher_micro'),
  outstandingMicro: micro('outstanding_micro'),
  pendingMicro: micro('pending_micro'),
  // null: every available model is enabled (the default); otherwise the enabled ids.
  enabledModels: jsonb('enabled_models').$type<string[] | null>(),
  /** an Owner's rule: a person's console session acts in this team only with two-factor sign-in on (API keys are not persons) */
  requireTwoFactor: boolean('require_two_factor').notNull().default(false),
  createdAt: createdAt(),
});

/**
 * People who sign in with an e-mail address and a password (domain/accounts/persons.ts). A
 * member is a person's seat in a team (members.person_id); a member without one is what the
 * operator or an Owner made before accounts existed, and works as before.
 */
export const persons = pgTable('persons', {
  id: text('id').primaryKey(),
  /** normalized (trimmed, lower case: domain/accounts/persons.ts); unique whatever its case */
  email: text('email').notNull(),
  /** lib/passwords.ts: `$scrypt$ln=…,r=…,p=…$salt$hash` */
  passwordHash: text('password_hash').notNull(),
  /** when the address was proven (a confirm or invite link followed); null: never */
  emailVerifiedAtMs: bigint('email_verified_at_ms', { mode: 'number' }),
  createdAtMs: bigint('created_at_ms', { mode: 'number' }).notNull(),
  /** the TOTP secret (RFC 6238) once two-factor sign-in is on, sealed with the data dir's key (lib/secret-box.ts) */
  totpSecret: text('totp_secret'),
  /** a secret being enrolled, sealed: it becomes totp_secret when a code from it is confirmed */
  totpPendingSecret: text('totp_pending_secret'),
  totpEnabledAtMs: bigint('totp_enabled_at_ms', { mode: 'number' }),
  /** the time step of the last code accepted: a code is accepted once (a conditional UPDATE raises it) */
  totpLastStep: bigint('totp_last_step', { mode: 'number' }),
}, (t) => [uniqueIndex('persons_email_lower').on(sql`lower(${t.email})`)]);

export const members = pgTable('members', {
  id: text('id').primaryKey(),
  teamId: text('team_id').notNull().references(() => teams.id),
  /** the person who holds this seat; null for members made without an account (API keys only) */
  personId: text('person_id').references(() => persons.id),
  email: text('email').notNull(),
  role: text('role').notNull(),
  status: text('status').notNull().default('active'),
  phone: text('phone').notNull().default(''),
  remarkName: text('remark_name').notNull().default(''),
  createdAt: createdAt(),
}, (t) => [uniqueIndex('members_team_email').on(t.teamId, t.email), uniqueIndex('members_team_person').on(t.teamId, t.personId)]);

export const apiKeys = pgTable('api_keys', {
  id: text('id').primaryKey(),
  teamId: text('team_id').notNull().references(() => teams.id),
  memberId: text('member_id').notNull().references(() => members.id),
  name: text('name').notNull(),
  secretHash: text('secret_hash').notNull(),
  mask: text('mask').notNull(),
  status: text('status').notNull().default('active'),
  createdAt: createdAt(),
  revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
}, (t) => [uniqueIndex('api_keys_secret_hash').on(t.secretHash), index('api_keys_member').on(t.memberId)]);

export const keyPolicies = pgTable('key_policies', {
  keyId: text('key_id').primaryKey().references(() => apiKeys.id),
  policy: jsonb('policy').notNull(),
  updatedAtS: bigint('updated_at_s', { mode: 'number' }).notNull(),
  updatedBy: text('updated_by').notNull(),
});

export const budgets = pgTable('budgets', {
  scope: text('scope').notNull(), // 'member' | 'key'
  subjectId: text('subject_id').notNull(),
  teamId: text('team_id').notNull().references(() => teams.id),
  budgetType: text('budget_type').notNull(),
  limitUnits: bigint('limit_units', { mode: 'bigint' }).notNull(),
  cycle: text('cycle'),
  setAt: timestamp('set_at', { withTimezone: true, mode: 'date' }).notNull(),
}, (t) => [primaryKey({ columns: [t.scope, t.subjectId] })]);

export const ledgerEntries = pgTable('ledger_entries', {
  id: text('id').primaryKey(),
  // No foreign key to teams, on purpose: every posting locks its team row first
  // (lockTeamOrThrow) and teams are never deleted, so the per-row check only cost time:
  // ~20 µs of a ~65 µs ledger insert on embedded PGlite (bench/gateway/ingest-cost.ts).
  teamId: text('team_id').notNull(),
  kind: text('kind').notNull(), // topup | voucher | charge
  amountMicro: micro('amount_micro'),
  voucherMicro: micro('voucher_micro'),
  cashMicro: micro('cash_micro'),
  debtMicro: micro('debt_micro'),
  category: text('category').notNull().default(''),
  billingMethod: integer('billing_method').notNull().default(0),
  productId: text('product_id').notNull().default(''),
  productName: text('product_name').notNull().default(''),
  ownerId: text('owner_id').notNull().default(''),
  memberId: text('member_id'),
  keyId: text('key_id'),
  // usage detail for bills: quantities and unit prices as decimal strings
  detail: jsonb('detail').$type<Record<string, string>>().notNull().default({}),
  idempotencyKey: text('idempotency_key').notNull(),
  createdAt: createdAt(),
}, (t) => [
  uniqueIndex('ledger_idem').on(t.teamId, t.idempotencyKey),
  index('ledger_team_time').on(t.teamId, t.createdAt),
  index('ledger_member_time').on(t.memberId, t.createdAt),
  index('ledger_key_time').on(t.keyId, t.createdAt),
]);

export const fixedTermBills = pgTable('fixed_term_bills', {
  id: text('id').primaryKey(),
  ledgerId: text('ledger_id').notNull().references(() => ledgerEntries.id),
  teamId: text('team_id').notNull().references(() => teams.id),
  memberId: text('member_id'),
  startTimeS: bigint('start_time_s', { mode: 'number' }).notNull(),
  endTimeS: bigint('end_time_s', { mode: 'number' }).notNull(),
  productName: text('product_name').notNull(),
  productCategory: text('product_category').notNull(),
  productId: text('product_id').notNull(),
  ownerId: text('owner_id').notNull(),
  tradeType: text('trade_type').notNull(),
  billingMethod: integer('billing_method').notNull(),
  basePriceUnits: bigint('base_price_units', { mode: 'bigint' }).notNull(),
  billNum: text('bill_num').notNull(),
  pricePrecision: integer('price_precision').notNull().default(1),
  storageDays: integer('storage_days'),
  createdAt: createdAt(),
}, (t) => [index('ftb_team_time').on(t.teamId, t.createdAt)]);

export const llmModels = pgTable('llm_models', {
  id: text('id').primaryKey(),
  title: text('title').notNull(),
  description: text('description').notNull().default(''),
  contextSize: integer('context_size').notNull(),
  inputPricePerMUnits: bigint('input_price_per_m_units', { mode: 'bigint' }).notNull(),
  outputPricePerMUnits: bigint('output_price_per_m_units', { mode: 'bigint' }).notNull(),
  /** Batch API prices (billing method 5); null: half the interactive price, rounded down */
  batchInputPricePerMUnits: bigint('batch_input_price_per_m_units', { mode: 'bigint' }),
  batchOutputPricePerMUnits: bigint('batch_output_price_per_m_units', { mode: 'bigint' }),
  /** Price of prompt tokens the upstream served from its cache; null: the input price */
  cachedInputPricePerMUnits: bigint('cached_input_price_per_m_units', { mode: 'bigint' }),
  status: text('status').notNull(),
  upstream: jsonb('upstream').notNull(),
  createdAt: createdAt(),
  /**
   * The upstream key set through the admin API, sealed with the data dir's key
   * (lib/secret-box.ts, as registry passwords are): the HTTP servers of `upstream` that name
   * no `apiKeyEnv` are called with it. Never returned; null: none set.
   */
  upstreamKeySealed: text('upstream_key_sealed'),
  upstreamKeySetAt: timestamp('upstream_key_set_at', { withTimezone: true, mode: 'date' }),
});

/**
 * How a model's upstream has been answering the gateway's calls (gateway/upstreams/health.ts):
 * written when a replica's view of it changes (failures: at most a write a second per model;
 * the first success after failures), never per successful request. The replica that wrote last is the one it describes.
 */
export const llmModelUpstreamHealth = pgTable('llm_model_upstream_health', {
  modelId: text('model_id').primaryKey(),
  consecutiveFailures: integer('consecutive_failures').notNull(),
  lastError: text('last_error'),
  lastErrorAt: timestamp('last_error_at', { withTimezone: true, mode: 'date' }),
  lastSuccessAt: timestamp('last_success_at', { withTimezone: true, mode: 'date' }),
});

export const quotaDefinitions = pgTable('quota_definitions', {
  model: text('model').notNull(),
  quotaType: text('quota_type').notNull(),
  modal: text('modal').notNull(),
  productType: text('product_type').notNull(),
  defaultQuota: bigint('default_quota', { mode: 'bigint' }).notNull(),
  tiers: jsonb('tiers').$type<Record<string, string>>().notNull(),
  adjustable: boolean('adjustable').notNull(),
}, (t) => [primaryKey({ columns: [t.model, t.quotaType] })]);

export const quotaOverrides = pgTable('quota_overrides', {
  teamId: text('team_id').notNull().references(() => teams.id),
  model: text('model').notNull(),
  quotaType: text('quota_type').notNull(),
  currentQuota: bigint('current_quota', { mode: 'bigint' }).notNull(),
}, (t) => [primaryKey({ columns: [t.teamId, t.model, t.quotaType] })]);
