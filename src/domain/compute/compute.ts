// What compute operations need: the area's context (the driver, the sealing key, the
// timings, the spend admission), who pays for an instance, and what its driver runs. An
// instance changes status in one place, status.ts.
import type { Ctx } from '../context.ts';
import type { ComputeDriver, WorkloadSpec } from '../../drivers/types.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { parseImageRef } from '../../lib/image-ref.ts';
import type { SpendAdmission } from '../spend/admission.ts';
import type { Payer } from '../spend/scopes.ts';
import * as q from '../../store/compute.ts';

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
