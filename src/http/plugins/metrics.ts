import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
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

export function registerMetrics(app: App): void {
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    requests.inc({ method: req.method, route, status: reply.statusCode });
    duration.observe({ method: req.method, route }, reply.elapsedTime / 1000);
  });
}
