// Queries of the per-minute endpoint metrics (schema-serverless.ts `endpoint_metrics`): the
// additive flush of a process's counts, the read by minute or hour, and the retention sweep.
import { and, eq, gte, lt, lte, sql } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { endpointMetrics } from './schema-serverless.ts';

export type MetricsInsert = typeof endpointMetrics.$inferInsert;

/**
 * Add counts to their minutes. Replicas flush the same (endpoint, minute) row: every count is
 * added to what is there and the peak is the greater, never overwritten, so no replica's
 * counts are lost whatever the order of the flushes.
 */
export async function addEndpointMetrics(db: DbOrTx, rows: MetricsInsert[]): Promise<void> {
  if (!rows.length) return;
  const add = (c: string) => sql.raw(`"endpoint_metrics"."${c}" + excluded."${c}"`);
  await db.insert(endpointMetrics).values(rows).onConflictDoUpdate({
    target: [endpointMetrics.endpointId, endpointMetrics.minuteMs],
    set: {
      answered: add('answered'), failed: add('failed'), samples: add('samples'), waitingSum: add('waiting_sum'),
      waitingPeak: sql.raw('greatest("endpoint_metrics"."waiting_peak", excluded."waiting_peak")'),
      runningSum: add('running_sum'), startingSum: add('starting_sum'), desiredSum: add('desired_sum'),
    },
  });
}

export interface MetricsBucket {
  bucketMs: number;
  answered: number;
  failed: number;
  samples: number;
  waitingSum: number;
  waitingPeak: number;
  runningSum: number;
  startingSum: number;
  desiredSum: number;
}

/** An endpoint's minutes in [fromMs, toMs], summed per bucket of `stepMs` (peaks: the greatest); buckets with no row are absent. */
export async function readEndpointMetrics(db: DbOrTx, endpointId: string, fromMs: number, toMs: number, stepMs: number): Promise<MetricsBucket[]> {
  // the step inlined (an integer the caller chose): as a parameter, PostgreSQL would not see the
  // grouped expression and the selected one as the same
  if (!Number.isSafeInteger(stepMs) || stepMs <= 0) throw new Error(`bad metrics step ${stepMs}`);
  const step = sql.raw(String(stepMs));
  const bucket = sql<number>`(${endpointMetrics.minuteMs} / ${step}) * ${step}`.mapWith(Number);
  const sum = (c: typeof endpointMetrics.answered) => sql<number>`sum(${c})`.mapWith(Number);
  return db.select({
    bucketMs: bucket, answered: sum(endpointMetrics.answered), failed: sum(endpointMetrics.failed), samples: sum(endpointMetrics.samples),
    waitingSum: sum(endpointMetrics.waitingSum), waitingPeak: sql<number>`max(${endpointMetrics.waitingPeak})`.mapWith(Number),
    runningSum: sum(endpointMetrics.runningSum), startingSum: sum(endpointMetrics.startingSum), desiredSum: sum(endpointMetrics.desiredSum),
  }).from(endpointMetrics)
    .where(and(eq(endpointMetrics.endpointId, endpointId), gte(endpointMetrics.minuteMs, fromMs), lte(endpointMetrics.minuteMs, toMs)))
    .groupBy(bucket).orderBy(bucket);
}

/** Minutes before `beforeMs` go (retention). */
export async function pruneEndpointMetrics(db: DbOrTx, beforeMs: number): Promise<void> {
  await db.delete(endpointMetrics).where(lt(endpointMetrics.minuteMs, beforeMs));
}
