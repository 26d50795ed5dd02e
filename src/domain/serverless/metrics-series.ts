// The read of an endpoint's metrics (GET /endpoint/metrics, a Gantry extension): one point per
// minute or hour of the range, every bucket present (0 where nothing was recorded), so a
// chart draws it as it comes. Another team's endpoint is not found, as for get-endpoint.
import { readEndpointMetrics } from '../../store/serverless-metrics.ts';
import { requireEndpoint } from './endpoints.ts';
import { bad } from './errors.ts';
import type { Serverless } from './service.ts';

export const METRIC_STEPS = ['minute', 'hour'] as const;
export type MetricStep = (typeof METRIC_STEPS)[number];
const STEP_S: Record<MetricStep, number> = { minute: 60, hour: 3600 };
/** The longest range per step (1440 minutes; 744 hours, past the 30 days kept). */
export const MAX_RANGE_S: Record<MetricStep, number> = { minute: 86_400, hour: 31 * 86_400 };
/** Without startTime: the last hour by minute, the last day by hour. */
const DEFAULT_RANGE_S: Record<MetricStep, number> = { minute: 3600, hour: 86_400 };

export interface MetricsQuery {
  id: string;
  step?: string | undefined;
  startTime?: number | undefined;
  endTime?: number | undefined;
}

export interface MetricsPoint {
  /** the bucket's start, Unix seconds (UTC) */
  time: number;
  answered: number;
  failed: number;
  waitingMean: number;
  waitingPeak: number;
  running: number;
  starting: number;
  desired: number;
}

const mean = (sum: number, n: number) => (n > 0 ? Math.round((sum / n) * 100) / 100 : 0);

export async function endpointMetricsSeries(s: Serverless, teamId: string, query: MetricsQuery): Promise<{ step: MetricStep; startTime: number; endTime: number; data: MetricsPoint[] }> {
  const step = (query.step ?? 'minute') as MetricStep;
  if (!(METRIC_STEPS as readonly string[]).includes(step)) throw bad('step', `one of ${METRIC_STEPS.join('|')}`);
  const endTime = query.endTime ?? Math.floor(s.ctx.clock.nowMs() / 1000);
  const startTime = query.startTime ?? Math.max(0, endTime - DEFAULT_RANGE_S[step]);
  if (startTime > endTime) throw bad('startTime', 'at most endTime');
  if (endTime - startTime > MAX_RANGE_S[step]) throw bad('endTime', `at most ${MAX_RANGE_S[step]} s after startTime with step ${step}`);
  await requireEndpoint(s, teamId, query.id);
  const stepS = STEP_S[step];
  const first = Math.floor(startTime / stepS) * stepS;
  const rows = await readEndpointMetrics(s.ctx.db, query.id, first * 1000, endTime * 1000, stepS * 1000);
  const byTime = new Map(rows.map((r) => [r.bucketMs / 1000, r]));
  const data: MetricsPoint[] = [];
  for (let t = first; t <= endTime; t += stepS) {
    const r = byTime.get(t);
    data.push(r
      ? {
        time: t, answered: r.answered, failed: r.failed, waitingMean: mean(r.waitingSum, r.samples), waitingPeak: r.waitingPeak,
        running: mean(r.runningSum, r.samples), starting: mean(r.startingSum, r.samples), desired: mean(r.desiredSum, r.samples),
      }
      : { time: t, answered: 0, failed: 0, waitingMean: 0, waitingPeak: 0, running: 0, starting: 0, desired: 0 });
  }
  return { step, startTime, endTime, data };
}
