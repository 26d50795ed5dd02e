// The object graph of a Gantry process, built in one place: the change channel, the shared
// counters, the one spend admission, the model gateway, compute, and the job runner with
// the handlers of the job catalogue (src/jobs).
// app.ts puts HTTP on top of it; nothing else constructs services.
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Store } from './store/db.ts';
import type { Clock } from './lib/clock.ts';
import type { Ctx } from './domain/context.ts';
import { ChangeBus } from './domain/changes.ts';
import { PgChangeTransport } from './adapters/changes-pg.ts';
import type { Counters } from './domain/spend/counters.ts';
import { MemoryCounters } from './adapters/counters/memory.ts';
import { RedisCounters } from './adapters/counters/redis.ts';
import { FailOpenCounters } from './adapters/counters/failover.ts';
import { DependencyHealth } from './store/health.ts';
import { sql } from 'drizzle-orm';
import { SpendAdmission } from './domain/spend/admission.ts';
import { KeyAuthenticator } from './domain/keys/authenticator.ts';
import type { Sessions } from './domain/console/sessions.ts';
import { OperatorTokenVerifier } from './domain/operator-token.ts';
import { AuthThrottle, type AuthFailureCounter } from './domain/auth-throttle.ts';
import { MemoryAuthFailures } from './adapters/counters/auth-failures.ts';
import { RedisAuthFailures } from './adapters/counters/auth-failures-redis.ts';
import { Gateway } from './gateway/gateway.ts';
import { CommitSink, type UsageSink } from './gateway/usage-sink.ts';
import { PgJournalSink } from './gateway/pg-journal-sink.ts';
import { JournalSink, type WriteUsage } from './gateway/journal-sink.ts';
import { recordUsage } from './domain/usage/record.ts';
import { decodeUsage } from './domain/usage/codec.ts';
import { SecretBox, loadSecretKey } from './lib/secret-box.ts';
import { DEFAULT_TERMINAL_LIMITS, TERMINAL_TICKET_TTL_MS, type Terminals } from './domain/terminals/terminals.ts';
import { TerminalTickets } from './domain/terminals/tickets.ts';
import { createDriver } from './drivers/index.ts';
import type { ComputeDriver } from './drivers/types.ts';
import { DEFAULT_COMPUTE_TIMINGS, type Compute, type ComputeTimings } from './domain/compute/compute.ts';
import { JobRunner } from './jobs/runner.ts';
import { buildHandlers } from './jobs/handlers.ts';
import { AREAS } from './areas.ts';
import { sealClearTemplateImageAuths } from './domain/compute/templates.ts';
import { ServerlessRuntime } from './domain/serverless/reconciler.ts';
import { ServerlessRouter } from './domain/serverless/router.ts';
import type { WorkerLoad } from './domain/serverless/load.ts';
import type { ServerlessPlane } from './domain/serverless/plane.ts';
import type { Blobs } from './domain/blobs/links.ts';
import type { Media } from './domain/media/context.ts';
import { MemoryLoad } from './adapters/serverless-load/memory.ts';
import { EndpointMetrics } from './domain/serverless/metrics.ts';
import { RedisLoad } from './adapters/serverless-load/redis.ts';
// serverless management API
import type { Serverless } from './domain/serverless/service.ts';
import { BlobLinks, openBlobStore, type BlobStore } from './store/blobs/index.ts';
import type { Files } from './domain/files/files.ts';
import type { Responses } from './domain/responses/responses.ts';
import type { Batches } from './domain/batches/service.ts';
import type { Webhooks } from './domain/webhooks/service.ts';
import type { MediaCatalogue } from './domain/media/catalogue.ts';
import type { StorageQuotas } from './domain/storage/quotas.ts';
import type { MediaTasks } from './domain/media/tasks.ts';

export interface ServiceDeps {
  config: Config;
  store: Store;
  clock: Clock;
  log: FastifyBaseLogger;
  /** compute driver; default: the one configuration chose (GANTRY_COMPUTE_DRIVER). Closed with the services. */
  computeDriver?: ComputeDriver | undefined;
  computeTimings?: Partial<ComputeTimings> | undefined;
  /** where the embedded store's usage journal lives; default `<PGlite dir>/usage-journal` */
  usageJournalDir?: string | undefined;
  /** more job handlers (tests register job types of their own; the catalogue's are registered here) */
  registerJobs?: ((jobs: JobRunner) => void) | undefined;
}

/** Everything a route may call. */
export interface Services {
  ctx: Ctx;
  config: Config;
  keys: KeyAuthenticator;
  /** Checks the operator token (/admin/v1), re-reading its hash at most every key-cache TTL: a rotation reaches every replica. */
  operatorToken: OperatorTokenVerifier;
  /** Failed authentications per client address and key prefix: 429 before a credential is checked once over (domain/auth-throttle.ts). */
  authThrottle: AuthThrottle;
  /** The one admission for everything that costs money (domain/spend/admission.ts). */
  spend: SpendAdmission;
  /** Whether the database and Redis can be reached (503 at once while not; /readyz). */
  health: DependencyHealth;
  /** The OpenAI-compatible model pipeline (src/gateway). */
  gateway: Gateway;
  /**
   * GPU compute: driver, sealing key, timings; `reconcile()` runs one reconciler pass now,
   * through the job runner (tests, after advancing the clock); resolves to 1 when it ran, 0
   * when another runner held the job.
   */
  compute: Compute & { reconcile(): Promise<number> };
  /** The durable job runner (src/jobs): enqueue, and runDue() for tests. */
  jobs: JobRunner;
  /** Serverless workers (the runtime, a job), the router of endpoint URLs, their shared load, and this process's endpoint metrics counters; reconcile() runs a pass now (tests). */
  serverlessRuntime: ServerlessPlane & { reconcile(): Promise<number> };
  /** Serverless endpoints, the management API's part: store, clock, admission, URLs (domain/serverless). */
  serverless: Serverless;
  /** Where files, batch outputs and media keep their bytes (local disk or S3), and its signed links. */
  blobs: Blobs;
  /** The Files API (domain/files). */
  files: Files;
  /** Per-team quotas of stored files and media models: usage, the operator's overrides (domain/storage). */
  storage: StorageQuotas;
  /** Stored answers of the Responses API (domain/responses). */
  responses: Responses;
  /** The Batches API (domain/batches); its work runs as jobs (jobs/batches.ts). */
  batches: Batches;
  /** Webhooks (domain/webhooks): team secrets, endpoints, deliveries (jobs/webhooks.ts). */
  webhooks: Webhooks;
  /** Console sessions (domain/console): a cookie acting as the key or operator token it was opened with. */
  sessions: Sessions;
  /** Media (domain/media): the model catalogue, and async tasks (jobs/media-tasks.ts). */
  media: Media;
  /** Web terminals of running instances (domain/terminals): their tickets and the checks of a connect. */
  terminals: Terminals;
}

export interface BuiltServices {
  services: Services;
  /** Start the background work (the job runner's loop: the reconciler and every other job). */
  startBackground(): void;
  close(): Promise<void>;
}

/** Usage is journaled (unless configured off): in a local file beside the embedded store, in a table on PostgreSQL. */
async function openUsageSink(deps: ServiceDeps, ctx: Ctx): Promise<UsageSink> {
  const dir = deps.usageJournalDir ?? (deps.store.dataDir ? join(deps.store.dataDir, 'usage-journal') : undefined);
  if (deps.config.usageJournal === 'off') return new CommitSink(ctx);
  if (deps.store.kind === 'postgres') return PgJournalSink.open(ctx, deps.log, { maxDelayMs: deps.config.usageMoveDelayMs });
  if (!dir) return new CommitSink(ctx);
  const { procedure } = deps.store;
  const write: WriteUsage = procedure
    ? (lines, careful) => procedure('recordUsage', { lines, careful }) // decoded, built and stored on the database's thread
    : (lines, careful) => recordUsage(ctx, lines.map(decodeUsage), careful);
  return JournalSink.open(deps.log, { dir, write, fsync: deps.config.usageJournal === 'fsync', maxDelayMs: deps.config.usageMoveDelayMs });
}

export async function buildServices(deps: ServiceDeps): Promise<BuiltServices> {
  const { config, log } = deps;
  const { changes, jobs, ctx } = await buildContext(deps);
  const { health, counters } = await buildCounters(deps);
  const { spend, gateway } = await buildGateway(deps, ctx, counters, health);
  const compute = await buildCompute(deps, ctx, spend);
  const serverless = buildServerlessRuntime(deps, compute, jobs);
  const stored = await buildStorageAreas(deps, ctx, spend);
  const webhooks: Webhooks = { ctx, box: compute.secrets, settings: config.webhooks, log: log.child({ component: 'webhooks' }) };
  // Every job of the catalogue has its handler in one area (a missing one does not compile: src/areas.ts).
  jobs.handleAll(buildHandlers(AREAS, {
    ctx, config, log, compute, serverlessRuntime: serverless.runtime, files: stored.files, responses: stored.responses,
    batches: stored.batches, gateway, blobs: stored.blobs.store, webhooks, media: stored.media,
  }));
  deps.registerJobs?.(jobs);
  const { keys, operatorToken, authThrottle, sharedFailures } = await buildAuth(deps, ctx, health);
  const services: Services = {
    ctx, config, spend, gateway, health, keys, operatorToken, authThrottle,
    compute: { ...compute, reconcile: () => jobs.runNow('compute.reconcile') },
    jobs,
    serverlessRuntime: { ...serverless, reconcile: () => jobs.runNow('serverless.reconcile') },
    // serverless management API
    serverless: { ctx, spend, settings: config.serverless },
    ...stored,
    webhooks,
    sessions: { ctx, keys, operatorToken, ttlMs: config.console.sessionTtlMs },
    terminals: {
      compute, keys, baseUrl: () => config.serverless.publicBaseUrl, limits: { ...DEFAULT_TERMINAL_LIMITS },
      // signed with a key derived from the sealing key (domain/terminals/tickets.ts)
      tickets: new TerminalTickets(loadSecretKey(config.secretKey, config.dataDir), () => deps.clock.nowMs(), TERMINAL_TICKET_TTL_MS),
    },
  };
  return {
    services,
    startBackground: () => {
      health.start();
      serverless.metrics.start();
      if (config.runJobs) jobs.start();
    },
    close: () => closeServices({ health, jobs, serverless, compute, gateway, counters, sharedFailures, blobStore: stored.blobs.store, changes }),
  };
}

/** Stop the background work first, then close what it used, the change channel last. */
async function closeServices(p: {
  health: DependencyHealth; jobs: JobRunner; serverless: ServerlessPlane; compute: Compute; gateway: Gateway;
  counters: Counters; sharedFailures: AuthFailureCounter; blobStore: BlobStore; changes: ChangeBus;
}): Promise<void> {
  p.health.stop();
  await p.jobs.stop();
  p.serverless.router.close();
  await p.serverless.metrics.close(); // before the store closes: the last seconds' counts
  await p.serverless.load.close();
  await p.compute.driver.close(); // e.g. the sim's worker servers
  await p.gateway.close();
  await p.counters.close();
  await p.sharedFailures.close();
  await p.blobStore.close();
  await p.changes.close();
}

/** The change channel (across replicas on PostgreSQL), the job runner, and the context every domain operation gets. */
async function buildContext(deps: ServiceDeps): Promise<{ changes: ChangeBus; jobs: JobRunner; ctx: Ctx }> {
  const { config, store, clock, log } = deps;
  const changes = new ChangeBus({ onError: (err, change) => log.error({ err, change: change?.type }, 'a change subscriber failed') });
  if (store.kind === 'postgres' && store.databaseUrl) await changes.connect(new PgChangeTransport(store.databaseUrl, log));
  // The job runner is the context's job queue (ctx.jobs); its handlers are registered by buildServices, once their services exist.
  const jobs = new JobRunner({
    ctx: { db: store.db, clock, changes }, log: log.child({ component: 'jobs' }), pollMs: config.jobsPollMs, expireLeasesAtStart: store.kind === 'pglite',
  });
  return { changes, jobs, ctx: { db: store.db, clock, changes, jobs } };
}

/** Whether the database and Redis can be reached, and the shared counters: in this process, or on Redis. */
async function buildCounters(deps: ServiceDeps): Promise<{ health: DependencyHealth; counters: Counters }> {
  const { config, store, clock, log } = deps;
  let redis: RedisCounters | undefined;
  const health = new DependencyHealth({
    log,
    probes: {
      ...(store.kind === 'postgres' ? { database: () => store.db.execute(sql`select 1`) } : {}),
      ...(config.redisUrl ? { redis: () => redis!.ping() } : {}),
    },
  });
  let counters: Counters = new MemoryCounters();
  if (config.redisUrl) {
    redis = new RedisCounters({
      url: config.redisUrl, nowMs: () => clock.nowMs(), log, commandTimeoutMs: config.redisTimeoutMs, namespace: config.redisPrefix,
      onDown: (err) => health.down('redis', err), onUp: () => void health.probe('redis'),
    });
    await redis.start();
    counters = config.redisFailOpen ? new FailOpenCounters(redis, () => health.isUp('redis')) : redis;
  }
  return { health, counters };
}

/** The money path: the usage sink, the one spend admission over the counters, and the model gateway. */
async function buildGateway(deps: ServiceDeps, ctx: Ctx, counters: Counters, health: DependencyHealth): Promise<{ spend: SpendAdmission; gateway: Gateway }> {
  const { config, log } = deps;
  const sink = await openUsageSink(deps, ctx);
  const spend = new SpendAdmission(ctx, counters, {
    stateTtlMs: config.gateway.budgetStateTtlMs, settingsTtlMs: config.gateway.hotCacheTtlMs,
  }, () => sink.settled());
  const gateway = new Gateway(ctx, spend, sink, config.gateway, log, health, config.redisFailOpen);
  return { spend, gateway };
}

/** GPU compute: the driver, the sealing key, the timings. */
async function buildCompute(deps: ServiceDeps, ctx: Ctx, spend: SpendAdmission): Promise<Compute> {
  const { config, clock, log } = deps;
  const compute: Compute = {
    ctx, spend,
    driver: deps.computeDriver ?? await createDriver(config.computeDriver, { clock }),
    secrets: new SecretBox(loadSecretKey(config.secretKey, config.dataDir)),
    timings: { ...DEFAULT_COMPUTE_TIMINGS, ...deps.computeTimings },
  };
  const sealed = await sealClearTemplateImageAuths(compute); // migration 0005's part that needs the key
  if (sealed > 0) log.info({ templates: sealed }, 'sealed template image credentials stored in clear');
  return compute;
}

/** Serverless runtime: workers, autoscaling and billing (a job); the router of endpoint URLs. */
function buildServerlessRuntime(deps: ServiceDeps, compute: Compute, jobs: JobRunner): ServerlessPlane {
  const { config, log } = deps;
  // replicas share worker slots and queues through Redis; one process keeps them in memory
  const load: WorkerLoad = config.redisUrl ? new RedisLoad({ url: config.redisUrl, commandTimeoutMs: config.redisTimeoutMs, namespace: config.redisPrefix }) : new MemoryLoad();
  // per-minute requests and workers: counted in memory by this process, flushed every 5 s (additive across replicas)
  const metrics = new EndpointMetrics(compute.ctx, { onError: (err) => log.warn({ err }, 'endpoint metrics flush failed; kept for the next') });
  const runtime = new ServerlessRuntime(compute, load, {
    holdSeconds: config.serverless.holdSeconds, meterIntervalMs: compute.timings.meterIntervalMs, metrics,
    onError: (endpointId, err) => log.error({ err, endpointId }, 'serverless reconcile failed; will retry'),
  });
  const router = new ServerlessRouter(compute.ctx, load, {
    queueLimit: config.serverless.queueLimit,
    // an API-only replica leaves the pass to the replicas that run jobs (their next pass is a second away)
    wake: () => void (config.runJobs ? jobs.runNow('serverless.reconcile') : Promise.resolve(0)).catch((err: unknown) => log.warn({ err }, 'serverless wake-up pass failed')),
  });
  return { runtime, router, load, metrics };
}

/** The blob store and the areas that keep bytes in it: storage quotas, files, batches, stored responses, media. */
async function buildStorageAreas(deps: ServiceDeps, ctx: Ctx, spend: SpendAdmission): Promise<Pick<Services, 'blobs' | 'storage' | 'files' | 'responses' | 'batches' | 'media'>> {
  const { config, clock } = deps;
  // The blob links are signed with a key derived from the sealing key.
  const blobs = {
    store: await openBlobStore(config.blobs),
    links: new BlobLinks(loadSecretKey(config.secretKey, config.dataDir), () => config.serverless.publicBaseUrl, () => clock.nowMs()),
  };
  const storage: StorageQuotas = {
    ctx,
    defaults: {
      files: { maxBytes: config.files.quotaBytes, maxCount: config.files.quotaCount },
      media: { maxBytes: config.media.quotaBytes, maxCount: config.media.quotaCount },
    },
  };
  const files: Files = { ctx, blobs: blobs.store, limits: { ...config.files, maxLineBytes: config.bodyLimits.llm }, storage };
  const catalogue: MediaCatalogue = {
    ctx, blobs, storage,
    opts: { downloadTtlS: config.media.linkTtlS, uploadMaxBytes: config.media.uploadMaxBytes, uploadStaleMs: config.media.uploadStaleMs },
  };
  // Media tasks: admitted and held at creation, run as jobs, ended (charged or released) once.
  const tasks: MediaTasks = { ctx, spend, blobs, config: config.media, webhooksAllowPrivate: config.webhooks.allowPrivate };
  return { blobs, storage, files, responses: { ctx, ttlMs: config.responsesTtlMs }, batches: { ctx, files }, media: { catalogue, tasks } };
}

/** Who calls: API keys, the operator token (checked at once: a store never bootstrapped fails here), failed authentications. */
async function buildAuth(deps: ServiceDeps, ctx: Ctx, health: DependencyHealth) {
  const { config, clock, log } = deps;
  const operatorToken = new OperatorTokenVerifier(ctx, config.keyCacheTtlMs);
  await operatorToken.load(); // a store that was never bootstrapped fails here, not at the first request
  const keys = new KeyAuthenticator(ctx, config.keyCacheTtlMs);
  const localFailures = new MemoryAuthFailures();
  let authCounterWarnedAt = 0;
  const sharedFailures: AuthFailureCounter = config.redisUrl
    ? new RedisAuthFailures({ url: config.redisUrl, commandTimeoutMs: config.redisTimeoutMs, namespace: config.redisPrefix })
    : localFailures;
  const authThrottle = new AuthThrottle({
    config: config.authThrottle, clock, shared: sharedFailures, local: localFailures, sharedUp: () => health.isUp('redis'),
    onError: (err) => {
      if (Date.now() - authCounterWarnedAt < 10_000) return; // once in a while, not once per failure
      authCounterWarnedAt = Date.now();
      log.warn({ err }, 'failed authentications are counted on this replica until Redis answers');
    },
  });
  return { operatorToken, keys, authThrottle, sharedFailures };
}
