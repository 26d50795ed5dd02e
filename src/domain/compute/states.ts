// Instance states and the ONE transition table that decides what each operation may do
// from each state. Rules are stated in ./README.md; keep the two in step.
import { BILLING_METHOD, type BillingMethod } from '../billing/codes.ts';

export const INSTANCE_STATUSES = [
  'toCreate', 'creating', 'pulling', 'running', 'toStart', 'starting', 'toStop', 'stopping', 'exited',
  'toRestart', 'restarting', 'toRemove', 'removing', 'removed', 'toReset', 'resetting', 'migrating', 'freezing',
] as const;
export type InstanceStatus = (typeof INSTANCE_STATUSES)[number];

export const BILLING_MODES = ['onDemand', 'monthly', 'spot'] as const;
export type BillingMode = (typeof BILLING_MODES)[number];
/** Modes billed per second of GPU time (monthly pays its term up front). */
export const METERED_MODES: BillingMode[] = ['onDemand', 'spot'];
/** The billing-method code (domain/billing/codes.ts) each billing mode is billed under. */
export const BILLING_METHOD_OF = {
  onDemand: BILLING_METHOD.payAsYouGo, monthly: BILLING_METHOD.subscription, spot: BILLING_METHOD.spot,
} as const satisfies Record<BillingMode, BillingMethod>;

export const OPERATIONS = ['start', 'stop', 'restart', 'delete', 'edit', 'upgrade', 'renew', 'toMonthly', 'migrate'] as const;
export type Operation = (typeof OPERATIONS)[number];

/**
 * operation → { state it may run from → state it leaves the instance in }. A state that is
 * absent refuses the operation with 400 naming the state. edit, renew and toMonthly change
 * configuration or billing, not the lifecycle, so they map a state to itself.
 */
export const TRANSITIONS: Record<Operation, Partial<Record<InstanceStatus, InstanceStatus>>> = {
  start: { exited: 'toStart' },
  stop: {
    toCreate: 'toStop', creating: 'toStop', pulling: 'toStop', running: 'toStop', toStart: 'toStop', starting: 'toStop',
    toRestart: 'toStop', restarting: 'toStop', toReset: 'toStop', resetting: 'toStop',
  },
  restart: { running: 'toRestart' },
  delete: {
    toCreate: 'toRemove', creating: 'toRemove', pulling: 'toRemove', running: 'toRemove', toStart: 'toRemove',
    starting: 'toRemove', toStop: 'toRemove', stopping: 'toRemove', exited: 'toRemove', toRestart: 'toRemove',
    restarting: 'toRemove', toReset: 'toRemove', resetting: 'toRemove', migrating: 'toRemove', freezing: 'toRemove',
  },
  edit: { running: 'running', exited: 'exited' },
  upgrade: { running: 'toReset', exited: 'toReset' },
  renew: {
    toCreate: 'toCreate', creating: 'creating', pulling: 'pulling', running: 'running', toStart: 'toStart',
    starting: 'starting', toStop: 'toStop', stopping: 'stopping', exited: 'exited', toRestart: 'toRestart',
    restarting: 'restarting', toReset: 'toReset', resetting: 'resetting', migrating: 'migrating', freezing: 'freezing',
  },
  toMonthly: { running: 'running', exited: 'exited' },
  // operator only: move a running instance to another cluster of the same product
  migrate: { running: 'migrating' },
};

/** Where the instance may go next from `from` under `op`, or undefined when refused. */
export function nextStatus(op: Operation, from: InstanceStatus): InstanceStatus | undefined {
  return TRANSITIONS[op][from];
}

/** States in which the instance's GPUs are in use and, on demand or spot, billed per second. */
export const BILLED_STATUSES: readonly InstanceStatus[] = ['running', 'toRestart', 'restarting', 'toReset', 'resetting', 'migrating'];
/** States on their way to a stop or stopped: expiry and spot reclaim no longer apply. */
export const WINDING_DOWN_STATUSES: readonly InstanceStatus[] = ['toStop', 'stopping', 'exited', 'toRemove', 'removing', 'removed', 'freezing'];
/** States a limit that runs out stops (everything holding or about to hold GPUs). */
export const FREEZABLE_STATUSES: readonly InstanceStatus[] = INSTANCE_STATUSES.filter((s) => !WINDING_DOWN_STATUSES.includes(s));
/** States that give the GPUs back to the cluster's inventory. */
export const RELEASED_STATUSES: readonly InstanceStatus[] = ['exited', 'removed'];

export function isStatus(s: string): s is InstanceStatus {
  return (INSTANCE_STATUSES as readonly string[]).includes(s);
}
export function isBilled(s: string): boolean {
  return (BILLED_STATUSES as readonly string[]).includes(s);
}
