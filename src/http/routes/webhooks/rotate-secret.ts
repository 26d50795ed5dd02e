import { Type } from 'typebox';
import { rotateSecret } from '../../../domain/webhooks/secrets.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { TAGS, WEBHOOK_BASE } from './schemas.ts';
import type { Webhooks } from '../../../domain/webhooks/service.ts';

export default function rotateSecretRoute(app: App, s: { webhooks: Webhooks }): void {
  app.post(`${WEBHOOK_BASE}/secret/rotate`, {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageWebhooks' } },
    schema: {
      tags: TAGS, summary: 'Rotate the webhook signing secret (the previous one keeps signing beside it for 24 hours)', security: KeyBearer,
      response: {
        200: Type.Object({
          secret: Type.String({ description: 'the new secret' }),
          previous_valid_until: Type.Integer({ description: 'Unix seconds: deliveries carry a signature with the previous secret too until then' }),
        }),
        ...errors(401, 403),
      },
    },
  }, async (req) => {
    const r = await rotateSecret(s.webhooks, principalOf(req).teamId);
    return { secret: r.secret, previous_valid_until: Math.floor(r.previousValidUntilMs / 1000) };
  });
}
