// The operator-set limits of endpoint parameters (compat.md's `GET /endpoint/limit`), stored in
// the settings table. Tenants read them; create and update are judged by them; the operator
// changes them with `PUT /admin/v1/serverless/limits` (any subset of fields, merged).
import type { Ctx } from '../context.ts';
import { getSetting, claimSetting, replaceSetting } from '../../store/settings.ts';
import { invalid } from '../../lib/errors.ts';

export interface EndpointLimits {
  minRootfsSize: number;
  maxRootfsSize: number;
  freeRootfsSize: number;
  minLocalVolumeSize: number;
  maxLocalVolumeSize: number;
  freeLocalVolumeSize: number;
  minWorkerNum: number;
  maxWorkerNum: number;
  minFreeTimeout: number;
  maxFreeTimeout: number;
  minConcurrencyNum: number;
  maxConcurrencyNum: number;
  minQueueWaitTime: number;
  maxQueueWaitTime: number;
  minRequestNum: number;
  maxRequestNum: number;
  minGPUNum: number;
  maxGPUNum: number;
  minRequestTimeout: number;
  maxRequestTimeout: number;
  cudaVersionList: string[];
}

type IntField = Exclude<keyof EndpointLimits, 'cudaVersionList'>;

/** compat.md's defaults; Decision: minNum may be 0 (scale to zero), so minWorkerNum is 0. */
export const DEFAULT_LIMITS: EndpointLimits = {
  minRootfsSize: 10, maxRootfsSize: 100, freeRootfsSize: 100,
  minLocalVolumeSize: 10, maxLocalVolumeSize: 300, freeLocalVolumeSize: 200,
  minWorkerNum: 0, maxWorkerNum: 1000,
  minFreeTimeout: 1, maxFreeTimeout: 1000,
  minConcurrencyNum: 1, maxConcurrencyNum: 1000,
  minQueueWaitTime: 1, maxQueueWaitTime: 1000,
  minRequestNum: 1, maxRequestNum: 1000,
  minGPUNum: 1, maxGPUNum: 8,
  minRequestTimeout: 1, maxRequestTimeout: 1800,
  cudaVersionList: ['12.1', '12.2'],
};

/**
 * Each min/max pair (and its `free` amount) with the bounds an operator may set: `floor` is
 * the lowest min, `ceiling` the highest max (8 GPUs: a worker is one node's GPUs).
 */
export const LIMIT_PAIRS: readonly { min: IntField; max: IntField; free?: IntField; floor: number; ceiling: number }[] = [
  { min: 'minRootfsSize', max: 'maxRootfsSize', free: 'freeRootfsSize', floor: 1, ceiling: 10_000 },
  { min: 'minLocalVolumeSize', max: 'maxLocalVolumeSize', free: 'freeLocalVolumeSize', floor: 1, ceiling: 10_000 },
  { min: 'minWorkerNum', max: 'maxWorkerNum', floor: 0, ceiling: 10_000 },
  { min: 'minFreeTimeout', max: 'maxFreeTimeout', floor: 1, ceiling: 86_400 },
  { min: 'minConcurrencyNum', max: 'maxConcurrencyNum', floor: 1, ceiling: 100_000 },
  { min: 'minQueueWaitTime', max: 'maxQueueWaitTime', floor: 1, ceiling: 86_400 },
  { min: 'minRequestNum', max: 'maxRequestNum', floor: 1, ceiling: 100_000 },
  // minGPUNum 0 lets tenants ask for CPU workers (gpuNum 0: no GPU, one unit of the product; metering.ts)
  { min: 'minGPUNum', max: 'maxGPUNum', floor: 0, ceiling: 8 },
  { min: 'minRequestTimeout', max: 'maxRequestTimeout', floor: 1, ceiling: 86_400 },
];

export const MAX_CUDA_VERSIONS = 50;
const CUDA_VERSION = /^[0-9]{1,3}(\.[0-9]{1,3}){1,2}$/;

const SETTING_KEY = 'serverless.limits';

/** The limits in force: what the operator stored over the defaults (a field added later reads as its default). */
export async function getLimits(ctx: Ctx): Promise<EndpointLimits> {
  const stored = await getSetting<Partial<EndpointLimits>>(ctx.db, SETTING_KEY);
  return { ...DEFAULT_LIMITS, ...stored };
}

/** Every rule a set of limits must keep; the first broken one is a 400 naming the field. */
export function checkLimits(l: EndpointLimits): void {
  for (const p of LIMIT_PAIRS) {
    for (const f of [p.min, p.max, p.free]) {
      if (f === undefined) continue;
      const v = l[f];
      const lo = f === p.min ? p.floor : f === p.max ? Math.max(1, p.floor) : 0;
      if (!Number.isInteger(v) || v < lo || v > p.ceiling) throw invalid(f, `must be an integer in ${lo}-${p.ceiling}, got ${v}`);
    }
    if (l[p.min] > l[p.max]) throw invalid(p.max, `must be at least ${p.min} (${l[p.min]}), got ${l[p.max]}`);
  }
  const list = l.cudaVersionList;
  if (!Array.isArray(list) || list.length > MAX_CUDA_VERSIONS) throw invalid('cudaVersionList', `must be a list of at most ${MAX_CUDA_VERSIONS} versions`);
  list.forEach((v, i) => {
    if (typeof v !== 'string' || !CUDA_VERSION.test(v)) throw invalid(`cudaVersionList[${i}]`, 'must be a CUDA version like 12.2');
  });
  if (new Set(list).size !== list.length) throw invalid('cudaVersionList', 'lists a version twice');
}

/** Merge `patch` into the limits in force, check the result, store it; returns what is now in force. */
export async function setLimits(ctx: Ctx, patch: Partial<EndpointLimits>): Promise<EndpointLimits> {
  const next: EndpointLimits = { ...(await getLimits(ctx)) };
  for (const [k, v] of Object.entries(patch)) {
    if (v !== undefined && k in DEFAULT_LIMITS) (next as unknown as Record<string, unknown>)[k] = v;
  }
  checkLimits(next);
  if (!(await claimSetting(ctx.db, SETTING_KEY, next))) await replaceSetting(ctx.db, SETTING_KEY, next);
  return next;
}
