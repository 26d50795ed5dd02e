// Every area of Gantry, once: a new area adds its folders (domain/<area>/ with its errors.ts,
// store/<area>.ts with its tables, http/routes/<area>/ with its index.ts, jobs/<area>.ts) and
// one entry here (docs/architecture.md, "Where a new area goes"). The app registers the
// routes of every area in this order; the job runner gets the handlers of every area, a job
// of the catalogue left without one (or given two) fails to compile (jobs/handlers.ts).
import type { RouteRegistrar } from './http/types.ts';
import type { JobName } from './domain/jobs/catalog.ts';
import type { AreaJobs } from './jobs/handlers.ts';
import { systemJobs } from './jobs/prune.ts';
import { computeJobs } from './jobs/compute-reconciler.ts';
import { serverlessJobs } from './jobs/serverless-reconciler.ts';
import { filesJobs } from './jobs/files-expiry.ts';
import { responsesJobs } from './jobs/responses-prune.ts';
import { batchesJobs } from './jobs/batches.ts';
import { webhooksJobs } from './jobs/webhooks.ts';
import { mediaJobs } from './jobs/media-tasks.ts';
import systemRoutes from './http/routes/system/index.ts';
import adminRoutes from './http/routes/admin/index.ts';
import teamRoutes from './http/routes/team/index.ts';
import policyRoutes from './http/routes/policy/index.ts';
import billingRoutes from './http/routes/billing/index.ts';
import budgetsRoutes from './http/routes/budgets/index.ts';
import quotasRoutes from './http/routes/quotas/index.ts';
import openaiRoutes from './http/routes/openai/index.ts';
import anthropicRoutes from './http/routes/anthropic/index.ts';
import computeRoutes from './http/routes/compute/index.ts';
import filesRoutes from './http/routes/files/index.ts';
import batchesRoutes from './http/routes/batches/index.ts';
import blobsRoutes from './http/routes/blobs/index.ts';
import consoleRoutes from './http/routes/console/index.ts';
import serverlessProxyRoutes from './http/routes/serverless-proxy/index.ts';
import serverlessRoutes from './http/routes/serverless/index.ts';
import webhooksRoutes from './http/routes/webhooks/index.ts';
import mediaRoutes from './http/routes/media/index.ts';
import storageRoutes from './http/routes/storage/index.ts';

export interface Area {
  /** the area's name: its folder under http/routes/ (and, where it has them, domain/ and store/) */
  name: string;
  /** its operations, one file each (http/routes/<area>/index.ts) */
  routes: readonly RouteRegistrar[];
  /** the handlers of its jobs (job types are in the catalogue, domain/jobs/catalog.ts) */
  jobs?: AreaJobs;
}

const AREA_LIST = [
  { name: 'system', routes: systemRoutes, jobs: systemJobs },
  { name: 'admin', routes: adminRoutes },
  { name: 'team', routes: teamRoutes },
  { name: 'policy', routes: policyRoutes },
  { name: 'billing', routes: billingRoutes },
  { name: 'budgets', routes: budgetsRoutes },
  { name: 'quotas', routes: quotasRoutes },
  { name: 'openai', routes: openaiRoutes, jobs: responsesJobs },
  { name: 'anthropic', routes: anthropicRoutes },
  { name: 'compute', routes: computeRoutes, jobs: computeJobs },
  { name: 'files', routes: filesRoutes, jobs: filesJobs },
  { name: 'batches', routes: batchesRoutes, jobs: batchesJobs },
  { name: 'blobs', routes: blobsRoutes },
  { name: 'console', routes: consoleRoutes },
  { name: 'serverless-proxy', routes: serverlessProxyRoutes },
  { name: 'serverless', routes: serverlessRoutes, jobs: serverlessJobs },
  { name: 'webhooks', routes: webhooksRoutes, jobs: webhooksJobs },
  { name: 'media', routes: mediaRoutes, jobs: mediaJobs },
  { name: 'storage', routes: storageRoutes },
] as const satisfies readonly Area[];

/** The areas, each route typed as it was written: the app's call checks the graph has what each names. */
export const AREAS = AREA_LIST;

/** Every job some area handles; a job of the catalogue missing here fails the check below. */
type HandledBy<E> = E extends { jobs: (d: never) => infer R } ? keyof R : never;
type JobsHandled = HandledBy<(typeof AREA_LIST)[number]>;
type Unhandled = Exclude<JobName, JobsHandled>;
/** Fails to compile, naming the job, when a job of the catalogue has no handler in any area. */
export const EVERY_JOB_HANDLED: [Unhandled] extends [never] ? true : `job ${Unhandled} has no handler in any area` = true;
