import { getSecret } from '../../../domain/webhooks/secrets.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { Secret, TAGS, WEBHOOK_BASE } from './schemas.ts';
import type { Webhooks } from '../../../domain/webhooks/service.ts';

export default function getSecretRoute(app: App, s: { webhooks: Webhooks }): void {
  app.get(`${WEBHOOK_BASE}/secret`, {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageWebhooks' } },
    schema: {
      tags: TAGS, summary: "The team's webhook signing secret (created on first read)", security: KeyBearer,
      response: { 200: Secret, ...errors(401, 403) },
    },
  }, async (req) => ({ secret: await getSecret(s.webhooks, principalOf(req).teamId) }));
}
