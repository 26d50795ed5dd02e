import { Type } from 'typebox';
import { sql } from 'drizzle-orm';
import type { App, Services } from '../../types.ts';

export default function healthz(app: App, s: Services): void {
  app.get('/healthz', {
    config: { auth: { kind: 'public' } },
    schema: {
      tags: ['system'], summary: 'Liveness and store reachability',
      response: { 200: Type.Object({ status: Type.Literal('ok'), store: Type.String() }) },
    },
  }, async () => {
    await s.ctx.db.execute(sql`select 1`);
    return { status: 'ok' as const, store: s.config.databaseUrl ? 'postgres' : 'pglite' };
  });
}
