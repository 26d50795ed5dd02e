import type { App } from '../../types.ts';
import { registry } from '../../plugins/metrics.ts';

export default function metrics(app: App): void {
  app.get('/metrics', {
    config: { auth: { kind: 'public' } },
    schema: { tags: ['system'], summary: 'Prometheus metrics', produces: ['text/plain'] },
  }, async (_req, reply) => {
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
}
