// The object graph of a Gantry process, built in one place: the core (the change channel and
// the job runner, the shared counters, the one spend admission, the model gateway, compute,
// the serverless runtime, the blob store, authentication: what has a lifetime or holds a key),
// then every area's contexts (src/areas.ts, in its order), then every area's jobs.
// app.ts puts HTTP on top of it; nothing else constructs services.
import { join } from 'node:path';
import type { Config } from './config.ts';
import type { Store } from './store/db.ts';
import type { Clock } from './lib/clock.ts';
import type { Logger } from './lib/logger.ts';
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
import { OperatorTokenVerifier } from './domain/operator-token.ts';
import { AuthThrottle, type AuthFailureCounter } from './domain/auth-throttle.ts';
import { SingleUse } from './domain/single-use.ts';
import { RedisNonces } from './adapters/single-use-redis.ts';
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
import { LiveSessions } from './domain/live-sessions/live-sessions.ts';
import { SshGateway } from './gateway/ssh/server.ts';
import { createDriver } from './drivers/index.ts';
import type { ComputeDriver } from './drivers/types.ts';
import { DEFAULT_COMPUTE_TIMINGS, type Compute, type ComputeTimings } from './domain/compute/compute.ts';
import { COMPUTE_JOBS } from './domain/compute/jobs.ts';
import { JobRunner } from './jobs/runner.ts';
import { AREAS, type Area, type AreaContexts, type ContextNeeds } from './areas.ts';
import { sealClearTemplateImageAuths } from './domain/compute/templates.ts';
import { ServerlessRuntime } from './domain/serverless/reconciler.ts';
import { ServerlessRouter } from './domain/serverless/router.ts';
import type { WorkerLoad } from './domain/serverless/load.ts';
import type { ServerlessPlane } from './domain/serverless/plane.ts';
import { SERVERLESS_JOBS } from './domain/serverless/jobs.ts';
import { MemoryLoad } from './adapters/serverless-load/memory.ts';
import { EndpointMetrics } from './domain/serverless/metrics.ts';
import { RedisLoad } from './adapters/serverless-load/redis.ts';
import { BlobLinks, openBlobStore } from './store/blobs/index.ts';
import type { Blobs } from './domain/blobs/links.ts';
import type { Mailer } from './domain/mail/mailer.ts';
import { SmtpMailer } from './adapters/mail/smtp.ts';
import { LogMailer } from './adapters/mail/log.ts';
import type { PaymentProcessor } from './domain/payments/processor.ts';

export interface ServiceDeps {
  config: Config;
  store: Store;
  clock: Clock;
  log: Logger;
  /** compute driver; default: the one configuration chose (GANTRY_COMPUTE_DRIVER). Closed with the services. */
  computeDriver?: ComputeDriver | undefined;
  computeTimings?: Partial<ComputeTimings> | undefined;
  /** where the embedded store's usage journal lives; default `<PGlite dir>/usage-journal` */
  usageJournalDir?: string | undefined;
  /** more job handlers (tests register job types of their own; the catalogue's are registered here) */
  registerJobs?: ((jobs: JobRunner) => void) | undefined;
  /** the mail port; default: SMTP when configured, else the log (tests pass one that records). Closed with the services. */
  mailer?: Mailer | undefined;
}

/**
 * What services.ts builds itself: what has a lifetime (connections, timers, caches, the
 * driver) or holds a key the graph does not hand out (the blob links' and terminal tickets'
 * signing keys, derived from the sealing key). Every area's context is made from it.
 */
export interface Core {
  ctx: Ctx;
  config: Config;
  log: Logger;
  /** The data dir's sealing key as a box (GANTRY_SECRET_KEY): registry passwords, webhook signing secrets, models' upstream keys. */
  secrets: SecretBox;
  keys: KeyAuthenticator;
  /** Checks the operator token (/admin/v1), re-reading its hash at most every key-cache TTL: a rotation reaches every replica. */
  operatorToken: OperatorTokenVerifier;
  /** Failed authentications per client address and key prefix: 429 before a credential is checked once over (domain/auth-throttle.ts). */
  authThrottle: AuthThrottle;
  /** Nonces of single-use tokens (a port's ticket), taken once across replicas through Redis when configured (domain/single-use.ts). */
  singleUse: SingleUse;
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
  /** Where files, batch outputs and media keep their bytes (local disk or S3), and its signed links. */
  blobs: Blobs;
  /** Web terminals of running instances (domain/terminals): their tickets and the checks of a connect. */
  terminals: Terminals;
  /** Sessions that outlive the check that opened them (terminals; SSH next), closed when a change takes their caller's right away. */
  liveSessions: LiveSessions;
  /** How e-mail leaves (domain/mail/mailer.ts): SMTP (GANTRY_SMTP_URL), else the server's log; sent only from jobs. */
  mailer: Mailer;
  /** The SSH endpoint (gateway/ssh): listens once `listen()` is called (serve; tests), when GANTRY_SSH_LISTEN is set. */
  ssh: SshGateway;
  /** The card processor (Stripe, adapters/payments/stripe.ts) when its settings are given; undefined: card top-ups are off. */
  paymentProcessor: PaymentProcessor | undefined;
}

/** Everything a route, a job or an area's context may be handed: the core and every area's contexts (each names the part it uses). */
export type Services = Core & AreaContexts;

/** Fails to compile, naming the part, when an area's context factory reads one the graph lacks (or has of another type). */
export const CONTEXTS_FED: Services extends ContextNeeds ? true : `an area's context reads ${Exclude<keyof ContextNeeds, keyof Services> & string}, which the graph lacks` = true;

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
  const { config } = deps;
  const { changes, jobs, ctx } = await buildContext(deps);
  const { health, counters } = await buildCounters(deps);
  const secrets = new SecretBox(loadSecretKey(config.secretKey, config.dataDir));
  const { spend, gateway } = await buildGateway(deps, ctx, counters, health, secrets);
  const compute = await buildCompute(deps, ctx, spend, secrets);
  const serverless = buildServerlessRuntime(deps, compute, jobs);
  const blobs = await openBlobs(deps);
  const { sharedFailures, ...auth } = await buildAuth(deps, ctx, health);
  const singleUse = buildSingleUse(deps, health);
  const mailer = deps.mailer ?? (config.mail.smtp ? new SmtpMailer(config.mail.smtp, config.mail.from) : new LogMailer(deps.log.child({ component: 'mail' })));
  // Stripe's client is loaded only when configured (a default start never loads it)
  const paymentProcessor = config.payments ? (await import('./adapters/payments/stripe.ts')).stripeProcessor(config.payments) : undefined;
  const liveSessions = new LiveSessions(ctx, auth.keys, (err) => deps.log.warn({ err }, 'a live session\'s caller could not be checked again: the session is closed'));
  const ssh = new SshGateway({
    ctx, driver: compute.driver, secrets, sessions: liveSessions, throttle: auth.authThrottle, config: config.ssh, log: deps.log.child({ component: 'ssh' }),
  });
  const services = buildAreaContexts({
    ctx, config, log: deps.log, secrets, spend, gateway, health, jobs, blobs, ...auth, singleUse, liveSessions, mailer, ssh, paymentProcessor,
    compute: { ...compute, reconcile: () => jobs.runNow(COMPUTE_JOBS.reconcile.name) },
    serverlessRuntime: { ...serverless, reconcile: () => jobs.runNow(SERVERLESS_JOBS.reconcile.name) },
    terminals: buildTerminals(deps, compute, auth.keys, liveSessions, singleUse),
  });
  // Each area's jobs, their handlers made from the graph (a type handled twice is refused here).
  for (const area of AREAS) for (const job of 'jobs' in area ? area.jobs : []) jobs.handle(job, services);
  deps.registerJobs?.(jobs);
  return {
    services,
    startBackground: () => {
      health.start();
      serverless.metrics.start();
      if (config.runJobs) jobs.start();
    },
    close: () => closeServices({ health, jobs, serverless, compute, gateway, counters, sharedFailures, singleUse, blobs, changes, mailer, ssh }),
  };
}

/**
 * The areas' contexts added to the core, in the areas' order: a factory reads the core and the
 * contexts of the areas above it; one that reads a part not built yet fails the start naming it.
 */
export function buildAreaContexts(core: Core, areas: readonly Area[] = AREAS): Services {
  const graph: Record<string, unknown> = { ...core };
  for (const area of areas) {
    for (const [name, make] of Object.entries(area.contexts ?? {})) {
      if (name in graph) throw new Error(`area ${area.name} adds ${name} to the service graph, which has one already`);
      const built = new Proxy(graph, {
        get: (g, key) => {
          if (typeof key === 'string' && !(key in g)) throw new Error(`area ${area.name}'s ${name} reads ${key}, which no area before it builds (src/areas.ts)`);
          return g[key as string];
        },
      });
      graph[name] = make(built as never);
    }
  }
  return graph as unknown as Services; // every context by its factory's type (AreaContexts); CONTEXTS_FED checks their needs
}

/** Stop the background work first, then close what it used, the change channel last. */
async function closeServices(p: {
  health: DependencyHealth; jobs: JobRunner; serverless: ServerlessPlane; compute: Compute; gateway: Gateway;
  counters: Counters; sharedFailures: AuthFailureCounter; singleUse: SingleUse; blobs: Blobs; changes: ChangeBus; mailer: Mailer; ssh: SshGateway;
}): Promise<void> {
  await p.ssh.close(); // its sessions' processes end before the driver closes
  p.health.stop();
  await p.jobs.stop();
  p.serverless.router.close();
  await p.serverless.metrics.close(); // before the store closes: the last seconds' counts
  await p.serverless.load.close();
  await p.compute.driver.close(); // e.g. the sim's worker servers
  await p.gateway.close();
  await p.counters.close();
  await p.sharedFailures.close();
  await p.singleUse.close();
  await p.blobs.store.close();
  await p.mailer.close(); // after the jobs: no message is being sent
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
async function buildGateway(deps: ServiceDeps, ctx: Ctx, counters: Counters, health: DependencyHealth, secrets: SecretBox): Promise<{ spend: SpendAdmission; gateway: Gateway }> {
  const { config, log } = deps;
  const sink = await openUsageSink(deps, ctx);
  const spend = new SpendAdmission(ctx, counters, {
    stateTtlMs: config.gateway.budgetStateTtlMs, settingsTtlMs: config.gateway.hotCacheTtlMs,
  }, () => sink.settled());
  const gateway = new Gateway(ctx, spend, sink, config.gateway, log, health, config.redisFailOpen, secrets);
  return { spend, gateway };
}

/** GPU compute: the driver, the sealing key, the timings. */
async function buildCompute(deps: ServiceDeps, ctx: Ctx, spend: SpendAdmission, secrets: SecretBox): Promise<Compute> {
  const { config, clock, log } = deps;
  const compute: Compute = {
    ctx, spend, secrets,
    driver: deps.computeDriver ?? await createDriver(config.computeDriver, { clock }),
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
    wake: () => void (config.runJobs ? jobs.runNow(SERVERLESS_JOBS.reconcile.name) : Promise.resolve(0)).catch((err: unknown) => log.warn({ err }, 'serverless wake-up pass failed')),
  });
  return { runtime, router, load, metrics };
}

/** The blob store, and its links signed with a key derived from the sealing key. */
async function openBlobs(deps: ServiceDeps): Promise<Blobs> {
  const { config, clock } = deps;
  return {
    store: await openBlobStore(config.blobs),
    links: new BlobLinks(loadSecretKey(config.secretKey, config.dataDir), () => config.serverless.publicBaseUrl, () => clock.nowMs()),
  };
}

/** Web terminals: their tickets signed with a key derived from the sealing key (domain/terminals/tickets.ts). */
function buildTerminals(deps: ServiceDeps, compute: Compute, keys: KeyAuthenticator, sessions: LiveSessions, singleUse: SingleUse): Terminals {
  const { config, clock } = deps;
  return {
    compute, keys, baseUrl: () => config.serverless.publicBaseUrl, limits: { ...DEFAULT_TERMINAL_LIMITS },
    sessions, maxOpen: config.terminals,
    tickets: new TerminalTickets(loadSecretKey(config.secretKey, config.dataDir), () => clock.nowMs(), TERMINAL_TICKET_TTL_MS, singleUse),
  };
}

/** Single-use nonces: Redis's when configured (every replica's), else this replica's only. */
function buildSingleUse(deps: ServiceDeps, health: DependencyHealth): SingleUse {
  const { config, log } = deps;
  let warnedAt = 0;
  return new SingleUse({
    shared: config.redisUrl ? new RedisNonces({ url: config.redisUrl, commandTimeoutMs: config.redisTimeoutMs, namespace: config.redisPrefix }) : undefined,
    sharedUp: () => health.isUp('redis'),
    onError: (err) => {
      if (Date.now() - warnedAt < 10_000) return; // once in a while, not once per ticket
      warnedAt = Date.now();
      log.warn({ err }, 'one-time tickets are taken on this replica only until Redis answers');
    },
  });
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
