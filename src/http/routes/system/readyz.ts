import { Type } from 'typebox';
import { AppError } from '../../../lib/errors.ts';
import { errors } from '../../schemas.ts';
import type { App } from '../../types.ts';

const Dependency = Type.Object({ status: Type.Union([Type.Literal('up'), Type.Literal('down')]), since: Type.String({ description: 'ISO 8601' }) });

/**
 * Readiness, for a load balancer: 200 while every dependency this replica uses answers, 503
 * naming the ones that do not (the replica keeps running and serves again when they return).
 */
export default function readyz(app: App, s: { health: { snapshot(): Record<string, { up: boolean; sinceMs: number }> } }): void {
  app.get('/readyz', {
    config: { family: 'account', auth: { kind: 'public' } },
    schema: {
      tags: ['system'], summary: 'Readiness: whether the database and Redis (if used) can be reached',
      response: { 200: Type.Object({ status: Type.Literal('ready'), dependencies: Type.Record(Type.String(), Dependency) }), ...errors(503) },
    },
  }, async () => {
    const snap = s.health.snapshot();
    const dependencies = Object.fromEntries(Object.entries(snap).map(([name, d]) => [name, { status: d.up ? 'up' as const : 'down' as const, since: new Date(d.sinceMs).toISOString() }]));
    const down = Object.entries(snap).filter(([, d]) => !d.up).map(([name]) => name);
    if (down.length) {
      throw new AppError('SERVICE_NOT_AVAILABLE', `not ready: ${down.join(' and ')} cannot be reached`, {
        dependency: down.join(','), ...Object.fromEntries(Object.entries(dependencies).map(([k, v]) => [k, v.status])),
      });
    }
    return { status: 'ready' as const, dependencies };
  });
}
