// Who may reach an instance over SSH, decided as the web terminal's rules are
// (domain/terminals): the username names the instance; the key offered must be one its team
// registered (domain/keys/ssh-keys.ts), of an active member of an active team, whose role may
// operate instances (`changeCompute`: not Basic, not Billing); then the instance must run.
// An instance that does not exist and another team's are refused alike (the same words, the
// same throttle count): no other team's instance can be told apart by any name or id.
import type { ComputeDriver } from '../../drivers/types.ts';
import type { Ctx } from '../../domain/context.ts';
import { sshKeyHolder } from '../../domain/keys/ssh-keys.ts';
import type { SessionSpec } from '../../domain/live-sessions/live-sessions.ts';
import { can, type Principal } from '../../domain/roles.ts';
import { findInstance, type InstanceRow } from '../../store/compute.ts';
import { sshForbidden, sshRefused, sshUnavailable } from './errors.ts';

/** the role rule of SSH: the roles that may start and stop instances (the web terminal's) */
export const SSH_CAPABILITY = 'changeCompute';
/** an instance id is short; anything longer is no instance */
const MAX_USERNAME = 128;

export interface SshCaps {
  perInstance: number;
  perTeam: number;
}

/** Whether the driver can serve SSH sessions (a shell or command in the workload). */
export function hasSsh(driver: ComputeDriver): boolean {
  return typeof driver.exec === 'function';
}

export interface Authorized {
  instance: InstanceRow;
  principal: Principal;
}

/** The instance `username` names and the member the key `fingerprint` is, if that member may reach it over SSH. */
export async function authorize(ctx: Ctx, username: string, fingerprint: string): Promise<Authorized> {
  const instance = username.length <= MAX_USERNAME ? await findInstance(ctx.db, username) : undefined;
  if (!instance) throw sshRefused(`no instance ${username} for this key`);
  let principal: Principal;
  try {
    principal = await sshKeyHolder(ctx, instance.teamId, { fingerprint });
  } catch (err) {
    // another team's instance answers as a missing one: a key of ours is simply not theirs
    if (err instanceof Error && 'reason' in err && err.reason === 'UNAUTHORIZED') throw sshRefused(`no instance ${username} for this key`);
    throw err;
  }
  mayOperate(principal);
  return { instance, principal };
}

export function mayOperate(p: Principal): void {
  if (!can(p.role, SSH_CAPABILITY)) throw sshForbidden(p.role);
}

/** Why a session cannot open on this instance now ('' when it can). */
export function unavailable(instance: Pick<InstanceRow, 'id' | 'status'>, driver: ComputeDriver): string {
  if (!hasSsh(driver)) return sshUnavailable('this Gantry\'s compute driver has no SSH').message;
  if (instance.status !== 'running') return sshUnavailable(`instance ${instance.id} is ${instance.status}: SSH reaches a running instance`).message;
  return '';
}

/** The live session an SSH connection is: its member and SSH key, its places (the instance's, the team's), its role rule. */
export function sshSessionSpec(ctx: Ctx, a: Authorized, caps: SshCaps): SessionSpec {
  const { principal: p, instance } = a;
  return {
    owner: { teamId: p.teamId, memberId: p.memberId, keyId: p.keyId },
    reread: async () => {
      const now = await sshKeyHolder(ctx, p.teamId, { sshKeyId: p.keyId });
      if (now.memberId !== p.memberId) throw sshRefused('the SSH key is another member\'s now');
      return now;
    },
    mayKeep: mayOperate,
    limits: [
      { subject: `ssh:instance:${instance.id}`, max: caps.perInstance, rule: 'ssh_sessions_per_instance',
        message: `instance ${instance.id} has ${caps.perInstance} SSH sessions open, the most it may have at once: close one first` },
      { subject: `ssh:team:${p.teamId}`, max: caps.perTeam, rule: 'ssh_sessions_per_team',
        message: `your team has ${caps.perTeam} SSH sessions open, the most it may have at once: close one first` },
    ],
  };
}

/** The command a user types: `ssh -p <port> <instanceId>@<host>` (an IPv6 host as is: ssh takes it bare). */
export function sshCommand(instanceId: string, host: string, port: number): string {
  return `ssh -p ${port} ${instanceId}@${host}`;
}
