// Every area of Gantry, once: its routes, the contexts it adds to the service graph, and the
// jobs it handles. A new area adds its folders (domain/<area>/ with its errors.ts, its jobs.ts
// and its context's factory, store/<area>.ts and store/schema-<area>.ts, http/routes/<area>/
// with its index.ts, jobs/<area>.ts) and one entry here (docs/architecture.md, "Where a new
// area goes"). services.ts builds the contexts in this order (an area's factory may read the
// contexts of the areas above it) and registers every area's jobs; the app registers the
// routes in this order. The compiler checks, where each is handed the graph, that the graph
// has what every route, factory and job names.
import type { RouteRegistrar } from './http/types.ts';
import type { JobType } from './domain/jobs/job-type.ts';
import type { AreaJob } from './jobs/handlers.ts';
import { systemJobs } from './jobs/prune.ts';
import { computeJobs } from './jobs/compute-reconciler.ts';
import { serverlessJobs } from './jobs/serverless-reconciler.ts';
import { filesJobs } from './jobs/files-expiry.ts';
import { responsesJobs } from './jobs/responses-prune.ts';
import { batchesJobs } from './jobs/batches.ts';
import { webhooksJobs } from './jobs/webhooks.ts';
import { mediaJobs } from './jobs/media-tasks.ts';
import { accountsJobs } from './jobs/accounts.ts';
import { accountsContext } from './domain/accounts/accounts.ts';
import accountsRoutes from './http/routes/accounts/index.ts';
import { storageContext } from './domain/storage/quotas.ts';
import { filesContext } from './domain/files/files.ts';
import { responsesContext } from './domain/responses/responses.ts';
import { batchesContext } from './domain/batches/service.ts';
import { sessionsContext } from './domain/console/sessions.ts';
import { serverlessContext } from './domain/serverless/service.ts';
import { webhooksContext } from './domain/webhooks/service.ts';
import { mediaContext } from './domain/media/context.ts';
import { catalogueContext } from './domain/models/catalogue.ts';
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
import portsRoutes from './http/routes/ports/index.ts';
import { portsContext } from './gateway/ports/ports.ts';
import serverlessRoutes from './http/routes/serverless/index.ts';
import webhooksRoutes from './http/routes/webhooks/index.ts';
import mediaRoutes from './http/routes/media/index.ts';
import storageRoutes from './http/routes/storage/index.ts';
import paymentsRoutes from './http/routes/payments/index.ts';
import { paymentsContext } from './domain/payments/payments.ts';

export interface Area {
  /** the area's name: its folder under http/routes/ (and, where it has them, domain/ and store/) */
  name: string;
  /** its operations, one file each (http/routes/<area>/index.ts) */
  routes: readonly RouteRegistrar[];
  /**
   * The contexts it adds to the graph, each under the name routes and jobs read it by, made
   * by a factory the area owns from the part of the graph it names (`filesContext(s: { ctx;
   * storage })`, domain/files/files.ts).
   */
  contexts?: Readonly<Record<string, (s: never) => unknown>>;
  /** the job types it handles, each with its handler (jobs/<area>.ts; the types in domain/<area>/jobs.ts) */
  jobs?: readonly AreaJob[];
}

const AREA_LIST = [
  { name: 'system', routes: systemRoutes, jobs: systemJobs },
  { name: 'admin', routes: adminRoutes, contexts: { catalogue: catalogueContext } },
  { name: 'team', routes: teamRoutes },
  { name: 'policy', routes: policyRoutes },
  { name: 'billing', routes: billingRoutes },
  { name: 'budgets', routes: budgetsRoutes },
  { name: 'quotas', routes: quotasRoutes },
  { name: 'openai', routes: openaiRoutes, contexts: { responses: responsesContext }, jobs: responsesJobs },
  { name: 'anthropic', routes: anthropicRoutes },
  { name: 'ports', routes: portsRoutes, contexts: { ports: portsContext } },
  { name: 'compute', routes: computeRoutes, jobs: computeJobs },
  { name: 'storage', routes: storageRoutes, contexts: { storage: storageContext } },
  { name: 'files', routes: filesRoutes, contexts: { files: filesContext }, jobs: filesJobs },
  { name: 'batches', routes: batchesRoutes, contexts: { batches: batchesContext }, jobs: batchesJobs },
  { name: 'blobs', routes: blobsRoutes },
  { name: 'accounts', routes: accountsRoutes, contexts: { accounts: accountsContext }, jobs: accountsJobs },
  { name: 'console', routes: consoleRoutes, contexts: { sessions: sessionsContext } },
  { name: 'serverless-proxy', routes: serverlessProxyRoutes },
  { name: 'serverless', routes: serverlessRoutes, contexts: { serverless: serverlessContext }, jobs: serverlessJobs },
  { name: 'webhooks', routes: webhooksRoutes, contexts: { webhooks: webhooksContext }, jobs: webhooksJobs },
  { name: 'media', routes: mediaRoutes, contexts: { media: mediaContext }, jobs: mediaJobs },
  { name: 'payments', routes: paymentsRoutes, contexts: { payments: paymentsContext } },
] as const satisfies readonly Area[];

/** The areas, each route, factory and job typed as it was written: where the graph is handed to them, the compiler checks it has what they name. */
export const AREAS = AREA_LIST;

/** The catalogue: every job type some area handles, in the areas' order. */
export const JOB_TYPES: readonly JobType[] = (AREA_LIST as readonly Area[]).flatMap((a) => (a.jobs ?? []).map((j) => j.type));

type ContextsOf<A> = A extends { contexts: infer C } ? { [K in keyof C]: C[K] extends (s: never) => infer R ? R : never } : never;
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** What the areas add to the graph: each context, by its name, of its factory's type. */
export type AreaContexts = Intersection<ContextsOf<(typeof AREA_LIST)[number]>>;

type FactoriesOf<A> = A extends { contexts: infer C } ? C[keyof C] : never;
type NeedOf<F> = F extends (s: infer S) => unknown ? S : never;

/** The parts of the graph the areas' context factories read, all of them (services.ts checks the graph has them). */
export type ContextNeeds = Intersection<NeedOf<FactoriesOf<(typeof AREA_LIST)[number]>>>;
