// What compute operations need, and the one place an instance changes status: moveTx keeps
// metering, GPU release and the reconcile schedule in step with the status.
import type { Ctx } from '../context.ts';
import type { Tx } from '../../store/db.ts';
import type { ComputeDriver, WorkloadSpec } from '../../drivers/types.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { parseImageRef } from '../../lib/image-ref.ts';
import type { SpendAdmission } from '../spend/admission.ts';
import type { Payer } from '../spend/scopes.ts';
import * as q from '../../store/compute.ts';
import { isBilled, RELEASED_STATUSES, type InstanceStatus } from './states.ts';
import { meterTx } from './metering.ts';
import { setHoldTx } from '../spend/holds.ts';
import { announceInstanceState } from './webhooks.ts';
import { logStatusTx } from './logs.ts';

export interface ComputeTimings {
  /** how soon the reconciler looks again at an instance in a transitional state */
  pollMs: number;
  /** how often a running metered instance is billed and its balance checked */
  meterIntervalMs: number;
  /** how long a lease on an instance lasts (a crashed replica's work is taken over after it) */
  leaseMs: number;
  /** notice a spot instance gets between reclaim and stop */
  spotNoticeMs: number;
}

export const DEFAULT_COMPUTE_TIMINGS: ComputeTimings = { pollMs: 1000, meterIntervalMs: 60_000, leaseMs: 30_000, spotNoticeMs: 30_000 };

export interface Compute {
  ctx: Ctx;
  driver: ComputeDriver;
  secrets: SecretBox;
  timings: ComputeTimings;
  /** the one admission for spend: first hours, terms, and the live reservations of other work */
  spend: SpendAdmission;
}

/** Who pays for an instance's GPU time: its team, and the member and key that created it. */
export function payerOf(row: Pick<q.InstanceRow, 'teamId' | 'memberId' | 'keyId'>): Payer {
  return { teamId: row.teamId, memberId: row.memberId, keyId: row.keyId };
}

export interface StatusError {
  state: string;
  message: string;
}

/** When the reconciler should look at an instance next, given the state it is in. */
export function nextCheckAt(c: Compute, row: Pick<q.InstanceRow, 'billingMode' | 'endTimeS' | 'spotStatus' | 'spotReclaimTimeS'>, status: InstanceStatus, nowMs: number): number | null {
  if (status === 'removed' || status === 'exited') return null;
  if (status !== 'running') return nowMs; // transitional: act now
  let at = nowMs + c.timings.meterIntervalMs;
  if (row.billingMode === 'monthly' && row.endTimeS > 0) at = Math.min(at, row.endTimeS * 1000);
  if (row.spotStatus === 'notified' && row.spotReclaimTimeS > 0) at = Math.min(at, row.spotReclaimTimeS * 1000);
  return at;
}

/**
 * Change an instance's status inside `tx` (which holds the instance row lock). GPU time up
 * to now is billed before a metered instance leaves a billed state; entering one starts
 * the meter.
 */
export async function moveTx(tx: Tx, c: Compute, row: q.InstanceRow, to: InstanceStatus, nowMs: number, extra: Partial<q.InstanceInsert> = {}, opts: { billUntilMs?: number | undefined } = {}): Promise<q.InstanceRow> {
  const patch: Partial<q.InstanceInsert> = { ...extra, status: to, updatedAt: new Date(nowMs) };
  if (to !== row.status) patch.statusSinceMs = nowMs;
  let meterFromMs = row.meterFromMs;
  if (row.meterFromMs !== null) {
    // a run that ended earlier (a crash seen at the next check) is billed up to its end only
    const until = opts.billUntilMs !== undefined ? Math.max(row.meterFromMs, Math.min(nowMs, opts.billUntilMs)) : nowMs;
    const m = await meterTx(tx, row, until);
    Object.assign(patch, m);
    meterFromMs = m.meterFromMs ?? row.meterFromMs;
  }
  const metered = (extra.billingMode ?? row.billingMode) !== 'monthly';
  if (metered && isBilled(to)) patch.meterFromMs = meterFromMs ?? nowMs;
  else patch.meterFromMs = null;
  if (to === 'exited' && row.spotStatus === 'reclaiming') patch.spotStatus = 'terminated';
  // where its ports answered holds only while it runs (the reconciler records it on the way in)
  if (to !== 'running' && !('portEndpoints' in extra) && row.portEndpoints.length) patch.portEndpoints = [];
  const next = { ...row, ...patch } as q.InstanceRow;
  if (!('nextReconcileAtMs' in extra)) patch.nextReconcileAtMs = nextCheckAt(c, next, to, nowMs);
  await q.updateInstance(tx, row.id, patch);
  if (to !== row.status) {
    await announceInstanceState(c.ctx, tx, next, row.status, nowMs);
    await logStatusTx(tx, next, row.status, nowMs);
  }
  // Stopped, removed, or no longer metered: what was held for its first hour goes back.
  if (RELEASED_STATUSES.includes(to) || !metered) {
    await setHoldTx(tx, { ownerId: row.id, payer: payerOf(row) }, 0n, nowMs);
  }
  return { ...next, nextReconcileAtMs: patch.nextReconcileAtMs ?? null };
}

/** What the driver needs to run the instance; the registry password is decrypted here only. */
export async function workloadSpec(c: Compute, row: q.InstanceRow): Promise<WorkloadSpec> {
  const product = await q.findProduct(c.ctx.db, row.productId);
  const imagePullAuth = await pullAuthOf(c, row.teamId, row.imageUrl, row.imageAuthId);
  return {
    id: row.id, teamId: row.teamId, clusterId: row.clusterId, image: row.imageUrl, imagePullAuth, command: row.command, entrypoint: row.entrypoint,
    envs: row.envs, ports: row.ports, gpuNum: row.kind === 'cpu' ? 0 : row.gpuNum, cpuNum: row.cpuNum, memoryGb: row.memoryGb,
    rootfsGb: row.rootfsSize, nodeSelector: product?.nodeSelector ?? {}, volumes: row.volumeMounts,
  };
}

/**
 * The credentials a driver pulls `image` with: the team's registry credential `authId`,
 * opened only here (instances and serverless workers); undefined for a public image.
 */
export async function pullAuthOf(c: Compute, teamId: string, image: string, authId: string): Promise<WorkloadSpec['imagePullAuth']> {
  if (!authId) return undefined;
  const auth = await q.findRegistryAuth(c.ctx.db, authId);
  if (!auth || auth.teamId !== teamId) return undefined;
  return { server: registryOf(image), username: auth.username, password: c.secrets.open(auth.passwordEnc) };
}

/** The registry of an image reference, as Docker reads it (Docker Hub when none is named, or the reference is none: the driver refuses it). */
export function registryOf(image: string): string {
  return parseImageRef(image)?.domain ?? 'docker.io';
}
