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
  name: 'gantry_usage_failed_records', help: 'Usage records the ledger refused; kept in the journal for the next start (should be 0)',
  registers: [registry], collect() { this.set(sum('failed')); },
});

export function registerMetrics(app: App, usageStats?: () => Record<string, number>): void {
  if (usageStats) {
    usageSources.add(usageStats);
    app.addHook('onClose', async () => { usageSources.delete(usageStats); });
  }
  // Callback style: an async hook costs a promise per request on the model hot path.
  app.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.url ?? 'unmatched';
    requests.inc({ method: req.method, route, status: reply.statusCode });
    duration.observe({ method: req.method, route }, reply.elapsedTime / 1000);
    done();
  });
}
