// What create and update take, judged and completed into the EndpointSpec that is stored
// (store/schema-serverless.ts). Every refusal is a 400 naming the field (with the body's path:
// `endpoint.workerConfig.minNum` on create, `workerConfig.minNum` on update) and its rule or
// range; nothing is looked up before the plain checks pass, and nothing is written here.
import type { EndpointSpec } from '../../store/schema-serverless.ts';
import * as cq from '../../store/compute.ts';
import type { Ctx } from '../context.ts';
import { requireProduct, retiredClusterIds } from '../compute/catalogue.ts';
import { requireNetworkStorage, MAX_NETWORK_MOUNTS } from '../compute/network-storage.ts';
import { requireRegistryAuth } from '../compute/registry-auths.ts';
import { checkEnvs, checkLength, checkPort, envsOf } from '../compute/limits.ts';
import { computeNotFound, insufficient } from '../compute/errors.ts';
import { POLICY_TYPES, VOLUME_TYPES, type PolicyType } from './codes.ts';
import type { EndpointLimits } from './limits.ts';
import { bad, productUnavailable } from './errors.ts';

/** An integer, or a string of digits: get and list answer some integers as strings, and clients send them back. */
export type IntLike = number | string;
type EnvPair = { key: string; value: string };

export interface EndpointInput {
  name?: string | undefined;
  appName?: string | undefined;
  workerConfig?: {
    minNum?: IntLike | undefined; maxNum?: IntLike | undefined; freeTimeout?: IntLike | undefined; maxConcurrent?: IntLike | undefined;
    gpuNum?: IntLike | undefined; requestTimeout?: IntLike | undefined; cudaVersion?: string | undefined;
  } | undefined;
  ports?: { port: IntLike }[] | undefined;
  policy?: { type: string; value: IntLike } | undefined;
  image?: { image?: string | undefined; authId?: string | undefined; command?: string | undefined } | undefined;
  products?: { id: string }[] | undefined;
  rootfsSize?: IntLike | undefined;
  volumeMounts?: { type: string; id?: string | undefined; size?: IntLike | undefined; mountPath?: string | undefined }[] | undefined;
  clusterID?: string | undefined;
  envs?: EnvPair[] | undefined;
  /** alias of envs (compat.md) */
  env?: EnvPair[] | undefined;
  healthy?: {
    path?: string | undefined; initialDelay?: IntLike | undefined; period?: IntLike | undefined; timeout?: IntLike | undefined;
    successThreshold?: IntLike | undefined; failureThreshold?: IntLike | undefined;
  } | undefined;
}

// ---- defaults (docs/compat-decisions.md, "Serverless endpoints") ----

export const CREATE_DEFAULTS = {
  minNum: 1, maxNum: 3, freeTimeout: 60, maxConcurrent: 1, gpuNum: 1, requestTimeout: 120, cudaVersion: '',
  policy: { type: 'queue' as PolicyType, value: 4 },
  /** Decision: the local volume's size when none is given; the interface fixes it at 30 on update */
  localVolumeSize: 30,
} as const;

export const HEALTH_DEFAULTS = { path: '/', initialDelay: 0, period: 10, timeout: 5, successThreshold: 1, failureThreshold: 3 } as const;
/** Bounds of the health check's numbers (seconds, counts): Gantry's own, not the operator's. */
export const HEALTH_BOUNDS = {
  initialDelay: [0, 3600], period: [1, 3600], timeout: [1, 3600], successThreshold: [1, 100], failureThreshold: [1, 100],
} as const;

export const APP_NAME_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const MAX_APP_NAME = 46;
/** The size a local volume may always be given on update (interface.md: "fixed at 30"). */
export const UPDATE_LOCAL_VOLUME_SIZE = 30;

const clamp = (v: number, lo: number, hi: number) => Math.min(Math.max(v, lo), hi);

/** An IntLike as a number, or undefined when absent; anything else is a 400 naming the field. */
export function intOf(field: string, v: IntLike | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'string') {
    if (!/^-?[0-9]{1,10}$/.test(v)) throw bad(field, 'must be an integer (or a string of digits)');
    return Number(v);
  }
  if (!Number.isInteger(v)) throw bad(field, 'must be an integer');
  return v;
}

function inRange(field: string, v: number, min: number, max: number): number {
  if (v < min || v > max) throw bad(field, `must be an integer in ${min}-${max}, got ${v}`);
  return v;
}

/** `v` if given (checked against [min, max]), else the default moved into that range. */
function intIn(field: string, raw: IntLike | undefined, min: number, max: number, dflt: number): number {
  const v = intOf(field, raw);
  return inRange(field, v ?? clamp(dflt, min, max), min, max);
}

export function checkAppName(field: string, appName: string): void {
  checkLength(field, appName, 1, MAX_APP_NAME);
  if (!APP_NAME_PATTERN.test(appName)) throw bad(field, 'must be lower-case letters, digits and "-", starting and ending with a letter or digit');
}

/** What an update keeps when a field outside the interface's update table is left out. */
export interface Current {
  spec: EndpointSpec;
}

export interface Resolved {
  spec: EndpointSpec;
  productName: string;
  /** units per GPU-hour: the product's on-demand price now */
  priceUnits: bigint;
}

/**
 * Judge `input` and complete it into a spec. `prefix` is where the fields sit in the body
 * (`endpoint.` on create). On update (`current` given) it is a full replacement of what the
 * interface's update table lists; appName, name, products and rootfsSize keep their values
 * when left out, and an empty image keeps the current image.
 */
export async function resolveSpec(ctx: Ctx, teamId: string, input: EndpointInput, opts: { prefix: string; limits: EndpointLimits; id: string; current?: Current | undefined }): Promise<Resolved> {
  const { prefix: p, limits: l, current } = opts;
  const cur = current?.spec;

  // ---- plain checks ----
  const appName = input.appName ?? cur?.appName ?? opts.id;
  checkAppName(`${p}appName`, appName);
  const name = input.name ?? cur?.name ?? appName;
  checkLength(`${p}name`, name, 0, 255);

  const workerConfig = resolveWorkerConfig(`${p}workerConfig.`, input.workerConfig ?? {}, l);
  const policy = resolvePolicy(`${p}policy`, input.policy, l);
  const image = resolveImage(p, input.image ?? {}, cur);

  const rootfsRaw = intOf(`${p}rootfsSize`, input.rootfsSize);
  const rootfsSize = inRange(`${p}rootfsSize`, rootfsRaw ?? cur?.rootfsSize ?? clamp(l.freeRootfsSize, l.minRootfsSize, l.maxRootfsSize), l.minRootfsSize, l.maxRootfsSize);

  if (input.ports?.length !== 1) throw bad(`${p}ports`, `must list exactly one port, got ${input.ports?.length ?? 0}`);
  const port = intOf(`${p}ports[0].port`, input.ports[0]!.port);
  if (port === undefined) throw bad(`${p}ports[0].port`, 'is required');
  checkPort(`${p}ports[0].port`, port);

  const given = envsOf(p, input);
  const envs = given.envs ?? [];
  checkEnvs(given.field, envs);
  for (const [i, e] of envs.entries()) {
    if (typeof e.key !== 'string' || typeof e.value !== 'string') throw bad(`${given.field}[${i}]`, 'key and value are required strings');
  }

  const healthy = resolveHealth(`${p}healthy`, input.healthy);

  const clusterID = input.clusterID ?? '';
  checkLength(`${p}clusterID`, clusterID, 0, 255);
  const mounts = checkMounts(`${p}volumeMounts`, input.volumeMounts ?? [], l, cur);

  if (input.products !== undefined && input.products.length !== 1) throw bad(`${p}products`, `must list exactly one GPU product, got ${input.products.length}`);
  const productId = input.products?.[0]?.id ?? cur?.productId;
  if (!productId) throw bad(`${p}products`, 'must list exactly one GPU product, got 0');
  checkLength(`${p}products[0].id`, productId, 1, 255);

  // ---- lookups ----
  const product = await requireProduct(ctx, productId);
  if (!product.available) throw productUnavailable(product.id);
  if (image.authId) await requireRegistryAuth(ctx, teamId, image.authId);
  const storageCluster = await networkStorageCluster(ctx, teamId, `${p}volumeMounts`, mounts);
  const clusterId = await chooseCluster(ctx, `${p}clusterID`, product, clusterID, storageCluster, cur?.productId === product.id ? cur.clusterId : undefined);

  const spec: EndpointSpec = {
    name, appName, workerConfig, policy, image, rootfsSize, volumeMounts: mounts, envs,
    port, productId: product.id, clusterId, healthy,
  };
  return { spec, productName: product.name, priceUnits: product.priceUnitsPerGpuHour };
}

function resolveWorkerConfig(wf: string, w: NonNullable<EndpointInput['workerConfig']>, l: EndpointLimits): EndpointSpec['workerConfig'] {
  const minNum = intIn(`${wf}minNum`, w.minNum, l.minWorkerNum, l.maxWorkerNum, CREATE_DEFAULTS.minNum);
  const maxLo = Math.max(1, l.minWorkerNum);
  const maxNum = intIn(`${wf}maxNum`, w.maxNum, maxLo, l.maxWorkerNum, Math.max(CREATE_DEFAULTS.maxNum, minNum));
  if (minNum > maxNum) throw bad(`${wf}maxNum`, `must be at least minNum (${minNum}), got ${maxNum}`);
  const workerConfig: EndpointSpec['workerConfig'] = {
    minNum, maxNum,
    freeTimeout: intIn(`${wf}freeTimeout`, w.freeTimeout, l.minFreeTimeout, l.maxFreeTimeout, CREATE_DEFAULTS.freeTimeout),
    maxConcurrent: intIn(`${wf}maxConcurrent`, w.maxConcurrent, l.minConcurrencyNum, l.maxConcurrencyNum, CREATE_DEFAULTS.maxConcurrent),
    gpuNum: intIn(`${wf}gpuNum`, w.gpuNum, l.minGPUNum, l.maxGPUNum, CREATE_DEFAULTS.gpuNum),
    requestTimeout: intIn(`${wf}requestTimeout`, w.requestTimeout, l.minRequestTimeout, l.maxRequestTimeout, CREATE_DEFAULTS.requestTimeout),
    cudaVersion: w.cudaVersion ?? CREATE_DEFAULTS.cudaVersion,
  };
  if (workerConfig.cudaVersion !== '' && !l.cudaVersionList.includes(workerConfig.cudaVersion)) {
    throw bad(`${wf}cudaVersion`, `must be "" (any) or one of ${l.cudaVersionList.join(', ') || '(none: the operator lists no version)'}`);
  }
  return workerConfig;
}

/** The image, its registry credential and command; on update an empty image keeps the current one (interface.md allows 0 characters there). */
function resolveImage(p: string, img: NonNullable<EndpointInput['image']>, cur: EndpointSpec | undefined): EndpointSpec['image'] {
  let image = img.image ?? '';
  checkLength(`${p}image.image`, image, cur ? 0 : 1, 511);
  if (image === '' && cur) image = cur.image.image;
  const authId = img.authId ?? '';
  const command = img.command ?? '';
  checkLength(`${p}image.authId`, authId, 0, 255);
  checkLength(`${p}image.command`, command, 0, 2047);
  return { image, authId, command };
}

/** The one cluster of the team's network storages the mounts name (undefined: none named); every one must be there. */
async function networkStorageCluster(ctx: Ctx, teamId: string, field: string, mounts: EndpointSpec['volumeMounts']): Promise<string | undefined> {
  let cluster: string | undefined;
  for (const [i, m] of mounts.entries()) {
    if (m.type !== 'network') continue;
    const vol = await requireNetworkStorage(ctx, teamId, m.id);
    if (cluster && vol.clusterId !== cluster) throw bad(`${field}[${i}].id`, 'all network storages must be in one cluster');
    cluster = vol.clusterId;
  }
  return cluster;
}

function resolvePolicy(field: string, raw: EndpointInput['policy'], l: EndpointLimits): EndpointSpec['policy'] {
  if (raw === undefined) {
    const d = CREATE_DEFAULTS.policy;
    return { type: d.type, value: clamp(d.value, l.minQueueWaitTime, l.maxQueueWaitTime) };
  }
  if (!(POLICY_TYPES as readonly string[]).includes(raw.type)) throw bad(`${field}.type`, `must be queue or concurrency, got "${raw.type}"`);
  const type = raw.type as PolicyType;
  const value = intOf(`${field}.value`, raw.value);
  if (value === undefined) throw bad(`${field}.value`, 'is required');
  // queue: seconds a request may wait before a worker is added; concurrency: requests waiting
  if (type === 'queue') inRange(`${field}.value`, value, l.minQueueWaitTime, l.maxQueueWaitTime);
  else inRange(`${field}.value`, value, l.minRequestNum, l.maxRequestNum);
  return { type, value };
}

function resolveHealth(field: string, raw: EndpointInput['healthy']): EndpointSpec['healthy'] {
  const h = raw ?? {};
  const path = h.path ?? HEALTH_DEFAULTS.path;
  checkLength(`${field}.path`, path, 1, 255);
  if (!path.startsWith('/')) throw bad(`${field}.path`, 'must start with /');
  const num = (k: keyof typeof HEALTH_BOUNDS) => intIn(`${field}.${k}`, h[k], HEALTH_BOUNDS[k][0], HEALTH_BOUNDS[k][1], HEALTH_DEFAULTS[k]);
  return {
    path, initialDelay: num('initialDelay'), period: num('period'), timeout: num('timeout'),
    successThreshold: num('successThreshold'), failureThreshold: num('failureThreshold'),
  };
}

/**
 * At most one local volume (sized within the operator's range on create; on update 30 or the
 * size it has) and at most 30 network storages (ids checked later), each at its own absolute path.
 */
function checkMounts(field: string, raw: NonNullable<EndpointInput['volumeMounts']>, l: EndpointLimits, cur: EndpointSpec | undefined): EndpointSpec['volumeMounts'] {
  const out: EndpointSpec['volumeMounts'] = [];
  const paths = new Set<string>();
  const curLocal = cur?.volumeMounts.find((m) => m.type === 'local')?.size;
  let locals = 0;
  let networks = 0;
  for (const [i, m] of raw.entries()) {
    const f = `${field}[${i}]`;
    if (!(VOLUME_TYPES as readonly string[]).includes(m.type)) throw bad(`${f}.type`, `must be local or network, got "${m.type}"`);
    checkLength(`${f}.mountPath`, m.mountPath, 1, 255);
    const mountPath = m.mountPath!;
    if (!mountPath.startsWith('/')) throw bad(`${f}.mountPath`, 'must be an absolute path');
    if (paths.has(mountPath)) throw bad(`${f}.mountPath`, `${mountPath} is mounted twice`);
    paths.add(mountPath);
    const size = intOf(`${f}.size`, m.size);
    if (m.type === 'local') {
      if (++locals > 1) throw bad(f, 'at most one local volume');
      if (!cur) {
        out.push({ type: 'local', id: '', size: intIn(`${f}.size`, size, l.minLocalVolumeSize, l.maxLocalVolumeSize, CREATE_DEFAULTS.localVolumeSize), mountPath });
      } else {
        const allowed = [UPDATE_LOCAL_VOLUME_SIZE, ...(curLocal !== undefined ? [curLocal] : [])];
        if (size !== undefined && !allowed.includes(size)) {
          throw bad(`${f}.size`, `is fixed on update: ${[...new Set(allowed)].join(' or ')} (GB), got ${size}`);
        }
        out.push({ type: 'local', id: '', size: size ?? curLocal ?? UPDATE_LOCAL_VOLUME_SIZE, mountPath });
      }
    } else {
      if (++networks > MAX_NETWORK_MOUNTS) throw bad(field, `at most ${MAX_NETWORK_MOUNTS} network storages`);
      checkLength(`${f}.id`, m.id, 1, 255);
      out.push({ type: 'network', id: m.id!, size: 0, mountPath });
    }
  }
  return out;
}

/**
 * Where the workers run: the network storages' cluster (clusterID must name it), else the
 * cluster asked for, else the current one (update) or the first with GPUs of the product.
 */
async function chooseCluster(ctx: Ctx, field: string, product: cq.ProductRow, clusterID: string, storageCluster: string | undefined, currentCluster: string | undefined): Promise<string> {
  if (storageCluster !== undefined) {
    if (!clusterID) throw bad(field, `is required when a network storage is mounted: the storage's cluster, ${storageCluster}`);
    if (clusterID !== storageCluster) throw bad(field, `must be the cluster of the mounted network storage, ${storageCluster}, got ${clusterID}`);
  }
  // A retired cluster takes no new endpoint; one that runs there already keeps it.
  const retired = await retiredClusterIds(ctx);
  const withGpus = (await cq.listInventory(ctx.db)).filter((i) => i.productId === product.id && i.totalGpus > 0 && (!retired.has(i.clusterId) || i.clusterId === currentCluster)).map((i) => i.clusterId);
  if (clusterID) {
    if (!(await cq.findCluster(ctx.db, clusterID))) throw computeNotFound('cluster', clusterID);
    if (retired.has(clusterID) && clusterID !== currentCluster) throw bad(field, `cluster ${clusterID} is retired: no new endpoint is created there`);
    if (!withGpus.includes(clusterID)) throw insufficient(`cluster ${clusterID} has no ${product.name} GPUs`, { productId: product.id, clusterId: clusterID });
    return clusterID;
  }
  if (currentCluster && withGpus.includes(currentCluster)) return currentCluster;
  const first = withGpus[0];
  if (!first) throw insufficient(`no cluster has ${product.name} GPUs`, { productId: product.id });
  return first;
}
