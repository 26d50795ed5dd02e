import { Type } from 'typebox';
import type { App } from '../../types.ts';
import { registry } from '../../plugins/metrics.ts';

export default function metrics(app: App): void {
  app.get('/metrics', {
    // Documented only: a real response schema would make Fastify JSON-quote the text.
    config: { family: 'account', auth: { kind: 'public' }, docResponses: { 200: Type.String({ description: 'Prometheus text exposition format' }) } },
    schema: { tags: ['system'], summary: 'Prometheus metrics', produces: ['text/plain'] },
  }, async (_req, reply) => {
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
}
