// The composition root: builds a Fastify app over the given store and clock. Never listens.
import Fastify from 'fastify';
import swagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.ts';
import type { Store } from './store/db.ts';
import type { Clock } from './lib/clock.ts';
import { newId } from './lib/ids.ts';
import { KeyAuthenticator } from './domain/keys/authenticator.ts';
import type { Reservations } from './domain/billing/reservations.ts';
import { getOperatorTokenHash } from './domain/bootstrap.ts';
import { registerErrorHandling } from './http/plugins/errors.ts';
import { registerAuth } from './http/plugins/auth.ts';
import { registerMetrics } from './http/plugins/metrics.ts';
import { registerValidation } from './http/plugins/validation.ts';
import { ErrorBody, documentResponses } from './http/schemas.ts';
import { ROUTES } from './http/routes/index.ts';
import { ManualClock } from './lib/clock.ts';
import { SecretBox, loadSecretKey } from './lib/secret-box.ts';
import { createDriver } from './drivers/index.ts';
import type { ComputeDriver } from './drivers/types.ts';
import { DEFAULT_COMPUTE_TIMINGS, type ComputeTimings } from './domain/compute/compute.ts';
import { ComputeReconcileLoop } from './jobs/compute-reconciler.ts';
import type { App, RouteAuth, Services } from './http/types.ts';
import type { Ctx } from './domain/context.ts';
import { Gateway } from './gateway/gateway.ts';
import { MemoryCounters } from './gateway/counters/memory.ts';
import { RedisCounters } from './gateway/counters/redis.ts';
import { CommitSink, type UsageSink } from './gateway/usage-sink.ts';
import { JournalSink, type WriteUsage } from './gateway/journal-sink.ts';
import { recordUsage } from './domain/usage/record.ts';
import { join } from 'node:path';

export interface AppDeps {
  config: Config;
  store: Store;
  clock: Clock;
  reservations?: Reservations;
  logger?: boolean | object;
  /** compute driver; default from config (sim unless GANTRY_COMPUTE_DRIVER=kubernetes) */
  computeDriver?: ComputeDriver;
  computeTimings?: Partial<ComputeTimings>;
  /**
   * Run background jobs (the compute reconciler). Default: yes, unless the clock is a
   * ManualClock: a test that drives time drives the jobs too (services.compute.reconcile()).
   */
  runBackground?: boolean;
  /**
   * Where the embedded store's usage journal lives; default `<PGlite dir>/usage-journal`.
   * Tests on an in-memory PGlite pass a directory of their own so the default path is tested.
   */
  usageJournalDir?: string;
}

/** A registered route and who may call it; the auth contract test walks this list. */
export interface RouteEntry {
  method: string;
  url: string;
  auth: RouteAuth | undefined;
}

export interface BuiltApp {
  app: App;
  services: Services;
  routes: RouteEntry[];
}

/** The embedded store journals usage (unless configured off); PostgreSQL commits it. */
async function openUsageSink(deps: AppDeps, ctx: Ctx, log: App['log']): Promise<UsageSink> {
  const dir = deps.usageJournalDir ?? (deps.store.dataDir ? join(deps.store.dataDir, 'usage-journal') : undefined);
  if (deps.store.kind !== 'pglite' || deps.config.usageJournal === 'off' || !dir) return new CommitSink(ctx);
  const { procedure } = deps.store;
  const write: WriteUsage = procedure
    ? (batch, careful) => procedure('recordUsage', { batch, careful }) // built and stored on the database's thread
    : (batch, careful) => recordUsage(ctx, batch, careful);
  return JournalSink.open(log, { dir, write, fsync: deps.config.usageJournal === 'fsync' });
}

export async function buildApp(deps: AppDeps): Promise<BuiltApp> {
  const app = Fastify({
    logger: deps.logger ?? { level: deps.config.logLevel },
    genReqId: (req) => {
      const h = req.headers['x-request-id'];
      return typeof h === 'string' && /^[\w.-]{1,128}$/.test(h) ? h : newId('request');
    },
    bodyLimit: 8 * 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;

  const ctx: Ctx = { db: deps.store.db, clock: deps.clock };
  const sink = await openUsageSink(deps, ctx, app.log);
  const gateway = new Gateway(ctx, deps.config.redisUrl ? new RedisCounters(deps.config.redisUrl) : new MemoryCounters(), sink, deps.config.gateway, app.log);
  ctx.ledgerObserver = gateway.observer; // postings elsewhere keep the gateway's budget counters in step
  app.addHook('onClose', async () => gateway.close());
  const services: Services = {
    ctx,
    config: deps.config,
    keys: new KeyAuthenticator(ctx, deps.config.keyCacheTtlMs),
    operatorTokenHash: await getOperatorTokenHash(ctx),
    reservations: deps.reservations ?? gateway.reservations,
    gateway,
    compute: undefined as unknown as Services['compute'], // set just below: it needs the services' reservations
  };
  const compute = {
    ctx,
    driver: deps.computeDriver ?? await createDriver({
      kind: deps.config.computeDriver, clock: deps.clock, simTimeScale: deps.config.simTimeScale,
      kubeconfigPath: deps.config.kubeconfigPath, kubeNamespace: deps.config.kubeNamespace,
    }),
    secrets: new SecretBox(loadSecretKey(deps.config.secretKey, deps.config.dataDir)),
    timings: { ...DEFAULT_COMPUTE_TIMINGS, ...deps.computeTimings },
    reservedMicro: (teamId: string) => services.reservations.reservedMicro(teamId),
  };
  const reconcileLoop = new ComputeReconcileLoop(compute, deps.config.reconcileIntervalMs, app.log);
  services.compute = { ...compute, reconcile: () => reconcileLoop.tick() };
  app.addHook('onClose', async () => reconcileLoop.stop());

  const routes: RouteEntry[] = [];
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) {
      if (method !== 'HEAD') routes.push({ method, url: r.url, auth: r.config?.auth });
    }
  });
  // Every answer carries its request id (set up front: errors and 404s keep it too).
  // Readers of money see every model request answered before they asked: usage still in
  // the journal is stored first. Model calls (routes declaring the callModels capability)
  // read counters, not the ledger, and never wait.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    const auth = req.routeOptions.config?.auth;
    const waiting = auth?.kind === 'key' && auth.capability === 'callModels' ? undefined : sink.settled();
    if (waiting) waiting.then(() => done(), done);
    else done();
  });
  app.addSchema(ErrorBody);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Gantry', version: '0.1.0', description: 'Self-hostable control plane for an AI cloud' },
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'Tenant API key (sk_…)' },
          operatorToken: { type: 'http', scheme: 'bearer', description: 'Operator token (/admin/v1)' },
        },
      },
    },
    transform: documentResponses, // responses documented without serializing by them (config.docResponses)
  });
  await app.register(scalar, { routePrefix: '/docs', configuration: { url: '/openapi.json' } } as never);
  registerValidation(app);
  registerErrorHandling(app);
  registerAuth(app, services);
  registerMetrics(app, () => sink.stats());
  for (const route of ROUTES) route(app, services);
  app.get('/openapi.json', { config: { auth: { kind: 'public' } }, schema: { hide: true } }, async () => app.swagger());
  await app.ready();
  if (deps.runBackground ?? !(deps.clock instanceof ManualClock)) reconcileLoop.start();
  return { app, services, routes };
}
