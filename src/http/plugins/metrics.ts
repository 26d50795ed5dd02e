import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { App } from '../types.ts';

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

const requests = new Counter({
  name: 'gantry_http_requests_total', help: 'HTTP requests by route and status',
  labelNames: ['method', 'route', 'status'] as const, registers: [registry],
});
const duration = new Histogram({
  name: 'gantry_http_request_duration_seconds', help: 'HTTP request duration by route',
  labelNames: ['method', 'route'] as const, registers: [registry],
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
});

// Model usage on its way to the ledger (src/gateway/usage-sink.ts). The registry is one per
// process and tests build many apps, so each app adds its source here and removes it on close.
const usageSources = new Set<() => Record<string, number>>();
const sum = (k: string) => [...usageSources].reduce((n, f) => n + (f()[k] ?? 0), 0);
new Gauge({
  name: 'gantry_usage_pending_records', help: 'Answered model requests whose usage is durable in the journal but not yet in the ledger',
  registers: [registry], collect() { this.set(sum('lag')); },
});
new Gauge({
  name: 'gantry_usage_recorded_unanswered_total', help: 'Model requests whose usage commit landed although the client was told it failed (a connection lost mid-commit): recorded and billed, not answered',
  registers: [registry], collect() { this.set(sum('recordedUnanswered')); },
});
new Gauge({
  name: 'gantry_usage_uncertain_records', help: 'Usage commits interrupted by a lost connection, not yet checked against the database',
  registers: [registry], collect() { this.set(sum('uncertain')); },
});
new Gauge({
  name: 'gantry_usage_failed_records', help: 'Usage records the ledger refused; kept in the journal for the next start (should be 0)',
  registers: [registry], collect() { this.set(sum('failed')); },
});

// Domain changes received from other replicas (domain/changes.ts), by type.
const changeSources = new Set<() => Map<string, number>>();
new Gauge({
  name: 'gantry_changes_received_total', help: 'Domain changes received from other replicas (LISTEN/NOTIFY), by type; "resync" counts reconnects',
  labelNames: ['type'] as const, registers: [registry],
  collect() {
    this.reset();
    const totals = new Map<string, number>();
    for (const f of changeSources) for (const [k, v] of f()) totals.set(k, (totals.get(k) ?? 0) + v);
    for (const [type, n] of totals) this.set({ type }, n);
  },
});

// Whether this replica reaches its dependencies (store/health.ts).
const healthSources = new Set<() => Record<string, { up: boolean }>>();
new Gauge({
  name: 'gantry_dependency_up', help: '1 while the dependency (database, redis) can be reached from this replica, 0 while not',
  labelNames: ['dependency'] as const, registers: [registry],
  collect() {
    this.reset();
    for (const f of healthSources) for (const [dependency, s] of Object.entries(f())) this.set({ dependency }, s.up ? 1 : 0);
  },
});

// How many calls in a row each model's upstream failed on this replica (gateway/upstreams/health.ts).
const upstreamSources = new Set<() => Map<string, number>>();
new Gauge({
  name: 'gantry_upstream_consecutive_failures', help: 'Calls in a row to the model\'s upstream that failed on this replica (0 once one succeeds); the admin API\'s GET /admin/v1/models/{id}/health says the last error',
  labelNames: ['model'] as const, registers: [registry],
  collect() {
    this.reset();
    for (const f of upstreamSources) for (const [model, n] of f()) this.set({ model }, n);
  },
});

export interface MetricSources {
  usage: () => Record<string, number>;
  changesReceived: () => Map<string, number>;
  dependencies: () => Record<string, { up: boolean }>;
  upstreamFailures: () => Map<string, number>;
}

export function registerMetrics(app: App, sources?: MetricSources): void {
  if (sources) {
    usageSources.add(sources.usage);
    changeSources.add(sources.changesReceived);
    healthSources.add(sources.dependencies);
    upstreamSources.add(sources.upstreamFailures);
    app.addHook('onClose', async () => {
      upstreamSources.delete(sources.upstreamFailures);
      usageSources.delete(sources.usage);
      changeSources.delete(sources.changesReceived);
      healthSources.delete(sources.dependencies);
    });
  }
  // Callback style: an async hook costs a promise per request on the model hot path.
  app.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.url ?? 'unmatched';
    requests.inc({ method: req.method, route, status: reply.statusCode });
    duration.observe({ method: req.method, route }, reply.elapsedTime / 1000);
    done();
  });
}
