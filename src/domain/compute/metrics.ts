// Instance metrics (the real service's `GET /openapi/v1/metrics/gpu/instance`;
// compat-decisions, GPU compute): the `compute.sample` job asks the driver for a usage sample
// of every running workload (`ComputeDriver.usage`: docker reads CPU and memory from the
// engine's stats and the GPUs from one nvidia-smi reading) every SAMPLE_EVERY_MS, keeps the
// instances' (not serverless workers') as rows stamped with Gantry's clock, forgets them after
// KEEP_MS; the operation reads them back averaged into buckets of `interval` seconds. A driver
// without usage() (the sim, kubernetes) has no samples: every series is empty.
import type { WorkloadUsage } from '../../drivers/types.ts';
import * as q from '../../store/instance-metrics.ts';
import type { Compute } from './compute.ts';
import { bad } from './errors.ts';
import { requireInstance } from './instances.ts';

export const SAMPLE_EVERY_MS = 15_000;
export const KEEP_MS = 7 * 86_400_000;
/** the shortest bucket, and the default one (the sampling interval) */
export const MIN_INTERVAL_S = 15;
/** the range read when the caller gives none */
export const DEFAULT_RANGE_S = 60;
const PRUNE_EVERY_MS = 3_600_000;

const round2 = (x: number) => Math.round(x * 100) / 100;
const pct = (used: number | undefined, total: number | undefined) => (used === undefined || !total ? null : round2((used / total) * 100));

/** A driver's sample as the row keeps it. */
function rowOf(u: WorkloadUsage, atMs: number): q.InstanceMetricInsert {
  return {
    instanceId: u.id, atMs, cpuPct: u.cpuPct ?? null, memPct: u.memoryPct ?? null, rootDiskPct: u.rootDiskPct ?? null,
    gpus: u.gpus.map((g) => ({ id: g.uuid, utilPct: g.utilizationPct ?? null, memPct: pct(g.memoryUsedMiB, g.memoryTotalMiB) })),
  };
}

/** Sample every running instance now; returns how many were stored (0 for a driver without usage()). */
export async function sampleInstanceMetrics(c: Compute): Promise<number> {
  if (!c.driver.usage) return 0;
  const usage = await c.driver.usage();
  const instances = await q.instanceIdsAmong(c.ctx.db, usage.map((u) => u.id));
  const now = c.ctx.clock.nowMs();
  const rows = usage.filter((u) => instances.has(u.id)).map((u) => rowOf(u, now));
  await q.insertInstanceMetrics(c.ctx.db, rows);
  return rows.length;
}

const prunedAt = new WeakMap<Compute, number>();
/** Forget samples older than KEEP_MS (at most hourly in a process). */
export async function pruneInstanceMetrics(c: Compute): Promise<void> {
  const now = c.ctx.clock.nowMs();
  const last = prunedAt.get(c);
  if (last !== undefined && now >= last && now - last < PRUNE_EVERY_MS) return;
  prunedAt.set(c, now);
  await q.pruneInstanceMetrics(c.ctx.db, now - KEEP_MS);
}

export interface MetricsQuery {
  instanceId: string;
  startTime?: number | undefined;
  endTime?: number | undefined;
  interval?: number | undefined;
}

export interface Point {
  timestamp: string;
  value: number;
}

export interface GpuSeries {
  avg: Point[];
  gpuIds: { gpuId: string; items: Point[] }[];
}

export interface InstanceMetrics {
  cpuUtilization: Point[];
  memUtilization: Point[];
  rootDiskUtilization: Point[];
  gpuUtilization: GpuSeries;
  gpuMemUtilization: GpuSeries;
}

/**
 * The range and bucket asked, in Unix seconds. Missing values take the service's defaults
 * (endTime now, startTime endTime − 60, interval 15); given ones out of range are refused, not
 * replaced (compat.md's leniency covers missing parameters only).
 */
export function metricsRange(q: Omit<MetricsQuery, 'instanceId'>, nowMs: number): { startS: number; endS: number; intervalS: number } {
  const interval = q.interval ?? MIN_INTERVAL_S;
  if (interval < MIN_INTERVAL_S) throw bad('interval', `must be at least ${MIN_INTERVAL_S} (seconds; samples are taken every ${SAMPLE_EVERY_MS / 1000} s)`);
  const endS = q.endTime ?? Math.floor(nowMs / 1000);
  const startS = q.startTime ?? endS - DEFAULT_RANGE_S;
  if (startS > endS) throw bad('startTime', `must not be after endTime (${endS})`);
  if (endS - startS > KEEP_MS / 1000) throw bad('startTime', `the range must be at most ${KEEP_MS / 1000} s (7 days: samples are kept 7 days)`);
  return { startS, endS, intervalS: interval };
}

/** Averages of values by bucket (its start, Unix seconds), oldest first; a bucket without a value has no point. */
class Buckets {
  private readonly sums = new Map<number, { sum: number; n: number }>();

  add(bucket: number, v: number | null | undefined): void {
    if (v === null || v === undefined) return;
    const b = this.sums.get(bucket);
    if (b) {
      b.sum += v;
      b.n++;
    } else this.sums.set(bucket, { sum: v, n: 1 });
  }

  points(): Point[] {
    return [...this.sums.entries()].sort((a, b) => a[0] - b[0]).map(([t, { sum, n }]) => ({ timestamp: String(t), value: round2(sum / n) }));
  }
}

function mean(xs: (number | null)[]): number | null {
  const v = xs.filter((x): x is number => x !== null);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
}

/** One of the two GPU series (utilization or memory) of the samples. */
function gpuSeries(rows: q.InstanceMetricRow[], bucketOf: (atMs: number) => number, pick: (g: q.InstanceMetricRow['gpus'][number]) => number | null): GpuSeries {
  const avg = new Buckets();
  const per = new Map<string, Buckets>();
  for (const r of rows) {
    const b = bucketOf(r.atMs);
    avg.add(b, mean(r.gpus.map(pick)));
    for (const g of r.gpus) {
      if (!per.has(g.id)) per.set(g.id, new Buckets());
      per.get(g.id)!.add(b, pick(g));
    }
  }
  return { avg: avg.points(), gpuIds: [...per.entries()].map(([gpuId, s]) => ({ gpuId, items: s.points() })) };
}

/** The instance's metrics over the range, by bucket; another team's instance is not found. */
export async function getInstanceMetrics(c: Compute, teamId: string, query: MetricsQuery): Promise<InstanceMetrics> {
  const row = await requireInstance(c, teamId, query.instanceId);
  const { startS, endS, intervalS } = metricsRange(query, c.ctx.clock.nowMs());
  const rows = await q.listInstanceMetrics(c.ctx.db, row.id, startS * 1000, endS * 1000);
  const bucketOf = (atMs: number) => Math.floor(atMs / 1000 / intervalS) * intervalS;
  const series = (pick: (r: q.InstanceMetricRow) => number | null) => {
    const b = new Buckets();
    for (const r of rows) b.add(bucketOf(r.atMs), pick(r));
    return b.points();
  };
  return {
    cpuUtilization: series((r) => r.cpuPct),
    memUtilization: series((r) => r.memPct),
    rootDiskUtilization: series((r) => r.rootDiskPct),
    gpuUtilization: gpuSeries(rows, bucketOf, (g) => g.utilPct),
    gpuMemUtilization: gpuSeries(rows, bucketOf, (g) => g.memPct),
  };
}
