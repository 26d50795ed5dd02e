// Queries of webhooks (schema-webhooks.ts): team secrets, endpoints, the delivery log.
import { and, desc, eq, inArray, lt, ne, sql } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { webhookDeliveries, webhookEndpoints, webhookMarks, webhookSecrets } from './schema-webhooks.ts';

export type SecretRow = typeof webhookSecrets.$inferSelect;
export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type NewEndpointRow = typeof webhookEndpoints.$inferInsert;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type NewDeliveryRow = typeof webhookDeliveries.$inferInsert;

// --- secrets

export async function findSecret(db: DbOrTx, teamId: string, opts: { forUpdate?: boolean } = {}): Promise<SecretRow | undefined> {
  const q = db.select().from(webhookSecrets).where(eq(webhookSecrets.teamId, teamId));
  const [row] = opts.forUpdate ? await q.for('update') : await q;
  return row;
}

/** The team's first secret; a secret created meanwhile by another request wins (nothing written then). */
export async function insertSecretIfAbsent(db: DbOrTx, row: typeof webhookSecrets.$inferInsert): Promise<void> {
  await db.insert(webhookSecrets).values(row).onConflictDoNothing({ target: webhookSecrets.teamId });
}

export async function updateSecret(db: DbOrTx, teamId: string, set: Partial<typeof webhookSecrets.$inferInsert>): Promise<void> {
  await db.update(webhookSecrets).set(set).where(eq(webhookSecrets.teamId, teamId));
}

// --- endpoints

export async function insertEndpoint(db: DbOrTx, row: NewEndpointRow): Promise<void> {
  await db.insert(webhookEndpoints).values(row);
}

export async function findEndpoint(db: DbOrTx, teamId: string, id: string): Promise<EndpointRow | undefined> {
  const [row] = await db.select().from(webhookEndpoints).where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.teamId, teamId)));
  return row;
}

export async function findEndpointById(db: DbOrTx, id: string): Promise<EndpointRow | undefined> {
  const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  return row;
}

export async function countEndpoints(db: DbOrTx, teamId: string): Promise<number> {
  const [c] = await db.select({ n: sql<number>`count(*)::int` }).from(webhookEndpoints).where(eq(webhookEndpoints.teamId, teamId));
  return c?.n ?? 0;
}

/** The team's endpoints newest first, a page of them and how many there are. */
export async function listEndpoints(db: DbOrTx, teamId: string, limit: number, offset: number): Promise<{ rows: EndpointRow[]; total: number }> {
  const where = eq(webhookEndpoints.teamId, teamId);
  const [c] = await db.select({ n: sql<number>`count(*)::int` }).from(webhookEndpoints).where(where);
  const rows = await db.select().from(webhookEndpoints).where(where).orderBy(desc(webhookEndpoints.id)).limit(limit).offset(offset);
  return { rows, total: c?.n ?? 0 };
}

/** Teams with an enabled endpoint subscribed to any of `events`, and which of them. */
export async function teamsSubscribedTo(db: DbOrTx, events: readonly string[]): Promise<Map<string, Set<string>>> {
  const rows = await db.select({ teamId: webhookEndpoints.teamId, events: webhookEndpoints.events }).from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.state, 'enabled'), sql`${webhookEndpoints.events} ?| ${sql.param([...events])}::text[]`));
  const out = new Map<string, Set<string>>();
  for (const r of rows) {
    const set = out.get(r.teamId) ?? new Set<string>();
    for (const e of r.events) if (events.includes(e)) set.add(e);
    out.set(r.teamId, set);
  }
  return out;
}

/** The team's enabled endpoints subscribed to `event`. */
export async function subscribedEndpoints(db: DbOrTx, teamId: string, event: string): Promise<EndpointRow[]> {
  return db.select().from(webhookEndpoints).where(and(
    eq(webhookEndpoints.teamId, teamId), eq(webhookEndpoints.state, 'enabled'),
    sql`${webhookEndpoints.events} @> ${JSON.stringify([event])}::jsonb`,
  ));
}

export async function updateEndpoint(db: DbOrTx, teamId: string, id: string, set: Partial<NewEndpointRow>): Promise<EndpointRow | undefined> {
  const [row] = await db.update(webhookEndpoints).set(set)
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.teamId, teamId))).returning();
  return row;
}

/** The endpoint failed an attempt: failing since now unless it was already. */
export async function markEndpointFailing(db: DbOrTx, id: string, nowMs: number): Promise<EndpointRow | undefined> {
  const [row] = await db.update(webhookEndpoints)
    .set({ failingSinceMs: sql`coalesce(${webhookEndpoints.failingSinceMs}, ${nowMs}::bigint)` })
    .where(eq(webhookEndpoints.id, id)).returning();
  return row;
}

export async function markEndpointDelivering(db: DbOrTx, id: string): Promise<void> {
  await db.update(webhookEndpoints).set({ failingSinceMs: null })
    .where(and(eq(webhookEndpoints.id, id), sql`${webhookEndpoints.failingSinceMs} is not null`));
}

/** Deletes the endpoint and its delivery log; false when the team has no such endpoint. */
export async function deleteEndpoint(db: DbOrTx, teamId: string, id: string): Promise<boolean> {
  const gone = await db.delete(webhookEndpoints).where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.teamId, teamId))).returning({ id: webhookEndpoints.id });
  if (!gone.length) return false;
  await db.delete(webhookDeliveries).where(eq(webhookDeliveries.endpointId, id));
  return true;
}

// --- deliveries

export async function insertDeliveries(db: DbOrTx, rows: NewDeliveryRow[]): Promise<void> {
  if (rows.length) await db.insert(webhookDeliveries).values(rows);
}

export async function findDelivery(db: DbOrTx, id: string): Promise<DeliveryRow | undefined> {
  const [row] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
  return row;
}

export async function findEndpointDelivery(db: DbOrTx, endpointId: string, id: string): Promise<DeliveryRow | undefined> {
  const [row] = await db.select().from(webhookDeliveries).where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.endpointId, endpointId)));
  return row;
}

/** An endpoint's deliveries newest first, a page of them and how many there are. */
export async function listDeliveries(db: DbOrTx, endpointId: string, limit: number, offset: number): Promise<{ rows: DeliveryRow[]; total: number }> {
  const where = eq(webhookDeliveries.endpointId, endpointId);
  const [c] = await db.select({ n: sql<number>`count(*)::int` }).from(webhookDeliveries).where(where);
  const rows = await db.select().from(webhookDeliveries).where(where).orderBy(desc(webhookDeliveries.id)).limit(limit).offset(offset);
  return { rows, total: c?.n ?? 0 };
}

/** Changes a delivery that is still in `from`; undefined when it was not. */
export async function updateDelivery(db: DbOrTx, id: string, from: string, set: Partial<NewDeliveryRow>): Promise<DeliveryRow | undefined> {
  const [row] = await db.update(webhookDeliveries).set(set)
    .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.state, from))).returning();
  return row;
}

/** Ends every pending delivery of an endpoint (it was disabled) with `error`. */
export async function failPendingDeliveries(db: DbOrTx, endpointId: string, nowMs: number, error: string): Promise<number> {
  const rows = await db.update(webhookDeliveries)
    .set({ state: 'failed', lastError: error, nextAttemptAtMs: null, updatedAtMs: nowMs })
    .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.state, 'pending'))).returning({ id: webhookDeliveries.id });
  return rows.length;
}

/** Deletes ended deliveries created before `beforeMs`, at most `limit`; how many went. */
export async function pruneDeliveries(db: DbOrTx, beforeMs: number, limit: number): Promise<number> {
  const ids = db.select({ id: webhookDeliveries.id }).from(webhookDeliveries)
    .where(and(lt(webhookDeliveries.createdAtMs, beforeMs), ne(webhookDeliveries.state, 'pending'))).limit(limit);
  const rows = await db.delete(webhookDeliveries).where(inArray(webhookDeliveries.id, ids)).returning({ id: webhookDeliveries.id });
  return rows.length;
}

// --- marks (thresholds announced once)

/** True when the mark is new (the crossing was not announced yet). */
export async function addMark(db: DbOrTx, teamId: string, mark: string, nowMs: number): Promise<boolean> {
  const rows = await db.insert(webhookMarks).values({ teamId, mark, createdAtMs: nowMs }).onConflictDoNothing().returning({ mark: webhookMarks.mark });
  return rows.length > 0;
}

export async function removeMark(db: DbOrTx, teamId: string, mark: string): Promise<void> {
  await db.delete(webhookMarks).where(and(eq(webhookMarks.teamId, teamId), eq(webhookMarks.mark, mark)));
}

/** Marks older than `beforeMs` (their budget period is long over), at most `limit`. */
export async function pruneMarks(db: DbOrTx, beforeMs: number, limit: number): Promise<number> {
  const rows = await db.execute(sql`
    delete from webhook_marks where (team_id, mark) in (
      select team_id, mark from webhook_marks where created_at_ms < ${beforeMs} and mark <> 'balance.low' limit ${limit})
    returning mark`);
  return (rows as unknown as { rows: unknown[] }).rows.length;
}
