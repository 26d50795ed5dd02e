// Usage events of the model gateway. Rows are only ever inserted.
import { sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import type { usageEvents } from './schema-gateway.ts';
import type { LedgerInsert } from './ledger.ts';
import type { WalletColumns } from './accounts.ts';

export type UsageEventRow = typeof usageEvents.$inferSelect;

// Bulk inserts for the gateway's group commit: one statement whatever the batch size, the
// columns passed as arrays (unnest), which costs a fraction of a multi-row VALUES insert
// built row by row. Money and counts travel as decimal strings, cast in SQL.
const str = (v: unknown) => (v === null || v === undefined ? null : String(v));

/** The ledger rows as one INSERT … SELECT FROM unnest(…) statement (a member of writeUsageBatch). */
function ledgerInsertSql(rows: LedgerInsert[]): SQL {
  const col = <K extends keyof LedgerInsert>(k: K) => sql.param(rows.map((r) => str(r[k])));
  return sql`
    insert into ledger_entries (id, team_id, kind, amount_micro, voucher_micro, cash_micro, debt_micro, category, billing_method,
                                product_id, product_name, owner_id, member_id, key_id, detail, idempotency_key, created_at)
    select id, team_id, kind, amount::bigint, voucher::bigint, cash::bigint, debt::bigint, category, method::integer,
           product_id, product_name, owner_id, member_id, key_id, detail::jsonb, idem, created::timestamptz
      from unnest(${col('id')}::text[], ${col('teamId')}::text[], ${col('kind')}::text[], ${col('amountMicro')}::text[],
                  ${col('voucherMicro')}::text[], ${col('cashMicro')}::text[], ${col('debtMicro')}::text[], ${col('category')}::text[],
                  ${col('billingMethod')}::text[], ${col('productId')}::text[], ${col('productName')}::text[], ${col('ownerId')}::text[],
                  ${col('memberId')}::text[], ${col('keyId')}::text[], ${sql.param(rows.map((r) => JSON.stringify(r.detail ?? {})))}::text[],
                  ${col('idempotencyKey')}::text[], ${sql.param(rows.map((r) => (r.createdAt as Date).toISOString()))}::text[])
        as u(id, team_id, kind, amount, voucher, cash, debt, category, method, product_id, product_name, owner_id, member_id, key_id,
             detail, idem, created)`;
}

/** The usage events as one INSERT … SELECT FROM unnest(…) statement. */
function usageEventsInsertSql(rows: UsageEventRow[]): SQL {
  const col = <K extends keyof UsageEventRow>(k: K) => sql.param(rows.map((r) => str(r[k])));
  return sql`
    insert into usage_events (id, request_id, team_id, member_id, key_id, model, endpoint, prompt_tokens, completion_tokens,
                              cached_tokens, reasoning_tokens, input_price_per_m_units, output_price_per_m_units,
                              cached_input_price_per_m_units, cost_micro, ledger_id, outcome, duration_ms, created_at)
    select id, request_id, team_id, member_id, key_id, model, endpoint, pt::bigint, ct::bigint, cached::bigint, reasoning::bigint,
           ip::bigint, op::bigint, cp::bigint, cost::bigint, ledger_id, outcome, dur::integer, created::timestamptz
      from unnest(${col('id')}::text[], ${col('requestId')}::text[], ${col('teamId')}::text[], ${col('memberId')}::text[],
                  ${col('keyId')}::text[], ${col('model')}::text[], ${col('endpoint')}::text[], ${col('promptTokens')}::text[],
                  ${col('completionTokens')}::text[], ${col('cachedTokens')}::text[], ${col('reasoningTokens')}::text[],
                  ${col('inputPricePerMUnits')}::text[], ${col('outputPricePerMUnits')}::text[], ${col('cachedInputPricePerMUnits')}::text[],
                  ${col('costMicro')}::text[], ${col('ledgerId')}::text[], ${col('outcome')}::text[], ${col('durationMs')}::text[],
                  ${sql.param(rows.map((r) => r.createdAt.toISOString()))}::text[])
        as u(id, request_id, team_id, member_id, key_id, model, endpoint, pt, ct, cached, reasoning, ip, op, cp, cost, ledger_id,
             outcome, dur, created)`;
}

export async function insertUsageEventsBulk(db: DbOrTx, rows: UsageEventRow[]): Promise<void> {
  if (rows.length) await db.execute(usageEventsInsertSql(rows));
}

/**
 * One statement for a team's share of a usage batch: its ledger charges, its new wallet and
 * its usage events, as data-modifying CTEs. Statements, not rows, are what a batch of a few
 * requests pays for (a round trip each on PostgreSQL, ~0.2 ms each on PGlite).
 */
export async function writeUsageBatch(db: DbOrTx, teamId: string, ledger: LedgerInsert[], wallet: WalletColumns, events: UsageEventRow[]): Promise<void> {
  await db.execute(sql`
    with l as (${ledger.length ? ledgerInsertSql(ledger) : sql`select 1`}),
         w as (update teams set cash_micro = ${String(wallet.cashMicro)}::bigint, voucher_micro = ${String(wallet.voucherMicro)}::bigint,
                                outstanding_micro = ${String(wallet.outstandingMicro)}::bigint where id = ${teamId})
    ${events.length ? usageEventsInsertSql(events) : sql`select 1`}`);
}

/**
 * Totals of a team's usage events, and of the gateway's ledger charges (categories llm and
 * batch): how many rows, how many requests they cover (`requests` in their detail; a charge
 * written before charges were grouped covers one) and how much they charged.
 */
export async function usageTotals(db: DbOrTx, teamId: string) {
  const res = await db.execute(sql`
    with e as (select count(*)::int as events, count(distinct request_id)::int as requests,
                      coalesce(sum(prompt_tokens), 0)::text as prompt_tokens, coalesce(sum(completion_tokens), 0)::text as completion_tokens,
                      coalesce(sum(cost_micro), 0)::text as cost_micro
                 from usage_events where team_id = ${teamId}),
         l as (select count(*)::int as ledger_charges, coalesce(sum(coalesce((detail->>'requests')::int, 1)), 0)::int as charged_requests,
                      coalesce(sum(amount_micro), 0)::text as charged_micro
                 from ledger_entries where team_id = ${teamId} and kind = 'charge' and category in ('llm', 'batch'))
    select * from e, l`);
  const r = (res as unknown as { rows: Record<string, unknown>[] }).rows[0]!;
  return {
    events: Number(r.events), requests: Number(r.requests), promptTokens: String(r.prompt_tokens),
    completionTokens: String(r.completion_tokens), costMicro: String(r.cost_micro), ledgerCharges: Number(r.ledger_charges),
    chargedRequests: Number(r.charged_requests), chargedMicro: String(r.charged_micro),
  };
}

/**
 * The gateway's charges of a team that do not add up to the events pointing at them (amount =
 * the events' costs, `requests` = their number), and events with a cost and no charge. Zero
 * when usage was recorded right; for tests and reconciliation.
 */
export async function unbalancedCharges(db: DbOrTx, teamId: string): Promise<number> {
  const res = await db.execute(sql`
    select (select count(*) from ledger_entries l
              left join (select ledger_id, sum(cost_micro) as cost, count(*) as n from usage_events where team_id = ${teamId} group by ledger_id) e
                on e.ledger_id = l.id
             where l.team_id = ${teamId} and l.kind = 'charge' and l.category in ('llm', 'batch')
               and (e.cost is distinct from l.amount_micro or e.n <> coalesce((l.detail->>'requests')::int, 1)))
         + (select count(*) from usage_events where team_id = ${teamId} and cost_micro > 0 and ledger_id is null) as n`);
  return Number((res as unknown as { rows: { n: unknown }[] }).rows[0]!.n);
}

/** Which of these requests have a usage event (a commit whose outcome its writer never learned, a replay). */
export async function recordedRequestIds(db: DbOrTx, requestIds: string[]): Promise<Set<string>> {
  if (!requestIds.length) return new Set();
  const res = await db.execute(sql`select request_id from usage_events where request_id = any(${sql.param(requestIds)}::text[])`);
  return new Set((res as unknown as { rows: { request_id: string }[] }).rows.map((r) => r.request_id));
}
