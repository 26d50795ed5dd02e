// The HTTP application over the services (services.ts builds the object graph): plugins,
// the one error handler, the route list and the OpenAPI document. Never listens.
import { serverlessHostRewrite } from './http/serverless-host.ts';
import { portsHostRewrite } from './http/ports-host.ts';
import type { IncomingMessage } from 'node:http';
import Fastify from 'fastify';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.ts';
import type { Store } from './store/db.ts';
import type { Clock } from './lib/clock.ts';
import { newId } from './lib/ids.ts';
import { ManualClock } from './lib/clock.ts';
import { clientErrorHandler, frameworkErrors, registerErrorHandling } from './http/plugins/errors.ts';
import { registerAuth } from './http/plugins/auth.ts';
import { registerMetrics } from './http/plugins/metrics.ts';
import { registerValidation } from './http/plugins/validation.ts';
import { LazySchemas } from './http/lazy-schemas.ts';
import { ErrorBody, documentResponses } from './http/schemas.ts';
import { parseQuery } from './http/querystring.ts';
import { AREAS } from './areas.ts';
import { registerDocsPage } from './http/docs-page.ts';
import { AllowedMethods } from './http/allowed-methods.ts';
import { redactingLoggerOptions } from './lib/log-redaction.ts';
import type { ComputeDriver } from './drivers/types.ts';
import type { ComputeTimings } from './domain/compute/compute.ts';
import type { App, RouteAuth } from './http/types.ts';
import { familyOfPath, type Family } from './lib/error-families.ts';
import { buildServices, type Services } from './services.ts';
import type { JobRunner } from './jobs/runner.ts';
import type { Mailer } from './domain/mail/mailer.ts';

export interface AppDeps {
  config: Config;
  store: Store;
  clock: Clock;
  /** pino options (level, stream); false for none. Secrets are redacted whatever is given (lib/log-redaction.ts). */
  logger?: boolean | Record<string, unknown>;
  /** compute driver; default: the one configuration chose (GANTRY_COMPUTE_DRIVER). Closed with the app. */
  computeDriver?: ComputeDriver;
  computeTimings?: Partial<ComputeTimings>;
  /**
   * Run the job runner's background loop (the compute reconciler and every other job).
   * Default: yes, unless the clock is a ManualClock: a test that drives time drives the jobs
   * too (services.jobs.runDue(), services.compute.reconcile()).
   */
  runBackground?: boolean;
  /** Job handlers beyond the catalogue's (tests register job types of their own). */
  registerJobs?: (jobs: JobRunner) => void;
  /**
   * Where the embedded store's usage journal lives; default `<PGlite dir>/usage-journal`.
   * Tests on an in-memory PGlite pass a directory of their own so the default path is tested.
   */
  usageJournalDir?: string;
  /** the mail port (domain/mail/mailer.ts); default: SMTP when configured, else the log. Tests pass one that records. */
  mailer?: Mailer;
}

/** A registered route and who may call it; the auth contract test walks this list. */
export interface RouteEntry {
  method: string;
  url: string;
  auth: RouteAuth | undefined;
  family: Family | undefined;
  /** the largest body it reads, bytes */
  bodyLimit: number;
}

/** A route must declare its family, and the compat families go with their path prefixes. */
function checkFamily(url: string, family: Family | undefined): void {
  if (!family) throw new Error(`route ${url} declares no error family (config.family)`);
  const byPath = familyOfPath(url);
  const prefixed = byPath === 'llm' || byPath === 'anthropic' || byPath === 'gpu' || byPath === 'media' || byPath === 'billing' || byPath === 'operator';
  if ((prefixed || family !== 'account') && family !== byPath) {
    throw new Error(`route ${url} declares family ${family}, but its path belongs to ${byPath}`);
  }
}

/** Trust the first `n` proxy hops (what Fastify does with a number; its types take a function). */
function hops(n: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < n;
}

export interface BuiltApp {
  app: App;
  services: Services;
  routes: RouteEntry[];
  /** The route schemas, compiled at their first use; compileAll() compiles the rest now (tests). */
  schemas: LazySchemas;
}

export async function buildApp(deps: AppDeps): Promise<BuiltApp> {
  const schemas = new LazySchemas(); // route schemas compile at first use (lazy-schemas.ts)
  const app = createFastify(deps, schemas);
  const built = await buildServices({
    config: deps.config, store: deps.store, clock: deps.clock, log: app.log,
    computeDriver: deps.computeDriver, computeTimings: deps.computeTimings, usageJournalDir: deps.usageJournalDir,
    registerJobs: deps.registerJobs, mailer: deps.mailer,
  });
  const { services } = built;
  app.addHook('onClose', async () => built.close());
  const routes = recordRoutes(app, deps.config, schemas);
  guardRequests(app, services, deps.config);
  app.addSchema(ErrorBody);
  await registerOpenApi(app);
  registerDocsPage(app); // the API reference page, loaded on its first request
  registerValidation(app, schemas);
  registerErrorHandling(app, services.health, new AllowedMethods(routes));
  registerAuth(app, services);
  registerMetrics(app, { usage: () => services.gateway.sink.stats(), changesReceived: () => services.ctx.changes.received, dependencies: () => services.health.snapshot(), upstreamFailures: () => services.gateway.upstreamHealth.failures() });
  for (const area of AREAS) for (const route of area.routes) route(app, services);
  app.get('/openapi.json', { config: { family: 'account', auth: { kind: 'public' } }, schema: { hide: true } }, async () => app.swagger());
  await app.ready();
  if (deps.runBackground ?? !(deps.clock instanceof ManualClock)) built.startBackground();
  return { app, services, routes, schemas };
}

/** Fastify with Gantry's logger (secrets redacted), request ids, body limit, proxy trust, query parser and lazy serializers. */
function createFastify(deps: AppDeps, schemas: LazySchemas): App {
  const logger = deps.logger === false ? false
    : redactingLoggerOptions(deps.logger === undefined || deps.logger === true ? { level: deps.config.logLevel } : deps.logger);
  const hostRewrite = hostRewrites(deps.config);
  return Fastify({
    logger,
    genReqId: (req) => {
      const h = req.headers['x-request-id'];
      return typeof h === 'string' && /^[\w.-]{1,128}$/.test(h) ? h : newId('request');
    },
    bodyLimit: deps.config.bodyLimits.default, // per route below, by family
    // whose X-Forwarded-For is the client address (req.ip: the auth throttle's); n hops as Fastify reads a number
    trustProxy: typeof deps.config.trustProxy === 'number' ? hops(deps.config.trustProxy) : deps.config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true, querystringParser: parseQuery },
    frameworkErrors,
    clientErrorHandler,
    schemaController: { compilersFactory: { buildSerializer: schemas.serializers() } },
    ...(hostRewrite ? { rewriteUrl: hostRewrite } : {}),
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;
}

/** Host-based addresses: an instance's port (GANTRY_PORTS_DOMAIN) first, then a serverless endpoint (GANTRY_SERVERLESS_DOMAIN). */
function hostRewrites(config: Config): ((req: IncomingMessage) => string) | undefined {
  const rewrites = [portsHostRewrite(config.ports.domain, config.serverless.publicBaseUrl),
    serverlessHostRewrite(config.serverless.domain, config.serverless.publicBaseUrl)].filter((r) => r !== undefined);
  if (!rewrites.length) return undefined;
  return (req) => {
    for (const r of rewrites) {
      const url = r(req);
      if (url !== req.url) return url;
    }
    return req.url ?? '/';
  };
}

/** Every route as it is registered: its family checked, its family's body limit set, the hot path's schemas compiled now; the list the auth contract test walks. */
function recordRoutes(app: App, config: Config, schemas: LazySchemas): RouteEntry[] {
  const routes: RouteEntry[] = [];
  app.addHook('onRoute', (r) => {
    checkFamily(r.url, r.config?.family);
    // The body limit of the route's family, unless the route sets its own (config.bodyLimits).
    r.bodyLimit ??= r.config?.family === 'llm' || r.config?.family === 'anthropic' ? config.bodyLimits.llm : config.bodyLimits.default;
    const modelCall = r.config?.auth?.kind === 'key' && r.config.auth.capability === 'callModels';
    for (const method of [r.method].flat()) {
      if (method !== 'HEAD') routes.push({ method, url: r.url, auth: r.config?.auth, family: r.config?.family, bodyLimit: r.bodyLimit });
      if (modelCall) schemas.eager.add(`${method} ${r.url}`); // the hot path's schemas compile now (lazy-schemas.ts)
    }
  });
  return routes;
}

/**
 * Every answer carries its request id (set up front: errors and 404s keep it too).
 * Readers of money see every model request answered before they asked: usage still in the
 * journal is stored first. Model calls (routes declaring the callModels capability) read
 * counters, not the ledger, and never wait. While a dependency a route needs is down, it is
 * refused at once (503 naming it) rather than left waiting on a connection: every route but
 * the public ones needs the database; model calls need Redis too, unless the operator lets
 * them fail open.
 */
function guardRequests(app: App, services: Services, config: Config): void {
  const { health } = services;
  const sink = services.gateway.sink;
  const modelsNeedRedis = health.uses('redis') && !config.redisFailOpen;
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    // Anthropic's clients read their request id from `request-id` (the SDKs' `_request_id`)
    if (req.routeOptions.config?.family === 'anthropic') reply.header('request-id', req.id);
    const auth = req.routeOptions.config?.auth;
    const modelCall = auth?.kind === 'key' && auth.capability === 'callModels';
    if (auth && auth.kind !== 'public') {
      try {
        health.require('database');
        if (modelCall && modelsNeedRedis) health.require('redis');
      } catch (e) {
        return done(e as Error);
      }
    }
    // readers of money wait for the usage journal; public routes read none (and /healthz must stay cheap)
    const waiting = modelCall || !auth || auth.kind === 'public' ? undefined : sink.settled();
    if (waiting === undefined) done();
    else waiting.then(() => done(), done);
  });
}

/** The OpenAPI document (/openapi.json): responses documented without serializing by them (config.docResponses). */
async function registerOpenApi(app: App): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Gantry', version: '0.1.0', description: 'Self-hostable control plane for an AI cloud' },
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'Tenant API key (sk_…)' },
          operatorToken: { type: 'http', scheme: 'bearer', description: 'Operator token (/admin/v1)' },
          anthropicApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'Tenant API key (sk_…), as Anthropic clients send it (/anthropic)' },
        },
      },
    },
    transform: documentResponses,
  });
}

/**
 * Close a listening app as `serve` shuts down: requests in flight finish (a stream to its
 * end, so it is billed for what it produced); a keep-alive connection that goes idle
 * meanwhile is closed at once rather than after its 72 s keep-alive timeout; after `graceMs`
 * whatever is left is cut.
 */
export async function closeApp(app: App, graceMs: number): Promise<void> {
  const idle = setInterval(() => app.server.closeIdleConnections(), 100);
  const cut = setTimeout(() => app.server.closeAllConnections(), graceMs);
  try {
    await app.close();
  } finally {
    clearInterval(idle);
    clearTimeout(cut);
  }
}
