// Tables of serverless endpoints (src/domain/serverless/README.md): the endpoint with its
// whole configuration, its workers (one driver workload each), its log lines and its
// per-minute metrics. Prices are units (1/10000 USD) per GPU-hour; metered money is micro.
import { sql } from 'drizzle-orm';
import { pgTable, text, bigint, integer, boolean, jsonb, timestamp, index, uniqueIndex, bigserial, primaryKey } from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull();
const ms = (name: string) => bigint(name, { mode: 'number' });

/** The endpoint's configuration as create/update take it, after defaults (domain/serverless/spec.ts). */
export interface EndpointSpec {
  name: string;
  appName: string;
  workerConfig: { minNum: number; maxNum: number; freeTimeout: number; maxConcurrent: number; gpuNum: number; requestTimeout: number; cudaVersion: string };
  policy: { type: 'queue' | 'concurrency'; value: number };
  image: { image: string; authId: string; command: string };
  rootfsSize: number;
  volumeMounts: { type: 'local' | 'network'; id: string; size: number; mountPath: string }[];
  envs: { key: string; value: string }[];
  port: number;
  productId: string;
  clusterId: string;
  healthy: { path: string; initialDelay: number; period: number; timeout: number; successThreshold: number; failureThreshold: number };
}

export const endpoints = pgTable('endpoints', {
  id: text('id').primaryKey(),
  teamId: text('team_id').notNull(),
  // the creator: GPU time of the workers counts against this member's and key's budgets
  memberId: text('member_id'),
  keyId: text('key_id'),
  appName: text('app_name').notNull(),
  state: text('state').notNull(),
  stateError: text('state_error').notNull().default(''),
  stateMessage: text('state_message').notNull().default(''),
  stateSinceMs: ms('state_since_ms').notNull(),
  spec: jsonb('spec').$type<EndpointSpec>().notNull(),
  // bumped by every update: workers of an older version are replaced (rolling)
  specVersion: integer('spec_version').notNull().default(1),
  productName: text('product_name').notNull(),
  // units per GPU-hour, fixed at creation and at each update
  priceUnits: bigint('price_units_per_gpu_hour', { mode: 'bigint' }).notNull(),
  // how many workers the autoscaler wants, and why it last changed that
  desiredWorkers: integer('desired_workers').notNull().default(0),
  nextReconcileAtMs: ms('next_reconcile_at_ms'),
  leaseUntilMs: ms('lease_until_ms').notNull().default(0),
  createdAt: createdAt(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
}, (t) => [
  index('endpoints_team_id').on(t.teamId, t.id),
  uniqueIndex('endpoints_team_app_name').on(t.teamId, t.appName),
  index('endpoints_due').on(t.nextReconcileAtMs),
]);

export const endpointWorkers = pgTable('endpoint_workers', {
  id: text('id').primaryKey(),
  endpointId: text('endpoint_id').notNull(),
  teamId: text('team_id').notNull(),
  specVersion: integer('spec_version').notNull(),
  state: text('state').notNull(),
  stateError: text('state_error').notNull().default(''),
  stateMessage: text('state_message').notNull().default(''),
  stateSinceMs: ms('state_since_ms').notNull(),
  // host:port the router sends requests to; '' until the driver reports one
  address: text('address').notNull().default(''),
  healthy: boolean('healthy').notNull().default(false),
  // takes no new request; stops once what it has is done
  draining: boolean('draining').notNull().default(false),
  okInRow: integer('ok_in_row').notNull().default(0),
  failInRow: integer('fail_in_row').notNull().default(0),
  // metering, as for instances (domain/compute/metering.ts)
  meterFromMs: ms('meter_from_ms'),
  meteredSeconds: ms('metered_seconds').notNull().default(0),
  meteredMicro: bigint('metered_micro', { mode: 'bigint' }).notNull().default(sql`0`),
  createdAt: createdAt(),
}, (t) => [index('endpoint_workers_endpoint').on(t.endpointId, t.id)]);

export const endpointLogs = pgTable('endpoint_logs', {
  seq: bigserial('seq', { mode: 'number' }).primaryKey(),
  endpointId: text('endpoint_id').notNull(),
  // null: a line of the endpoint (scaling decisions, state changes); else the worker's
  workerId: text('worker_id'),
  atMs: ms('at_ms').notNull(),
  line: text('line').notNull(),
}, (t) => [index('endpoint_logs_endpoint').on(t.endpointId, t.seq), index('endpoint_logs_worker').on(t.workerId, t.seq)]);

/**
 * Per endpoint per UTC minute: what the routers answered and what the reconciler saw. Every
 * column adds up (or takes the greater) when a replica flushes its counts, so several
 * processes write the same row without losing each other's counts (domain/serverless/metrics.ts).
 * Means are the sums over `samples` (reconciler passes that looked at the endpoint).
 */
export const endpointMetrics = pgTable('endpoint_metrics', {
  endpointId: text('endpoint_id').notNull(),
  // the minute's start, Unix ms (a multiple of 60000)
  minuteMs: ms('minute_ms').notNull(),
  // a worker answered with a status below 500
  answered: ms('answered').notNull().default(0),
  // a worker answered 5xx, or Gantry ended it: queue full, queue timeout, worker unreachable, cut at requestTimeout
  failed: ms('failed').notNull().default(0),
  samples: ms('samples').notNull().default(0),
  waitingSum: ms('waiting_sum').notNull().default(0),
  waitingPeak: integer('waiting_peak').notNull().default(0),
  runningSum: ms('running_sum').notNull().default(0),
  startingSum: ms('starting_sum').notNull().default(0),
  desiredSum: ms('desired_sum').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.endpointId, t.minuteMs] }), index('endpoint_metrics_minute').on(t.minuteMs)]);
