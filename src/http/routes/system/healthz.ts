import { Type } from 'typebox';
import type { App } from '../../types.ts';
import type { Config } from '../../../config.ts';

/**
 * Liveness: the process serves HTTP. It touches no dependency, so a database or Redis
 * outage never makes a supervisor restart a replica that will serve again when they return
 * (readiness is /readyz).
 */
export default function healthz(app: App, s: { config: Config }): void {
  app.get('/healthz', {
    config: { family: 'account', auth: { kind: 'public' } },
    schema: {
      tags: ['system'], summary: 'Liveness: the process serves (no dependency is touched; see /readyz)',
      response: { 200: Type.Object({ status: Type.Literal('ok'), store: Type.String() }) },
    },
  }, async () => ({ status: 'ok' as const, store: s.config.databaseUrl ? 'postgres' : 'pglite' }));
}
