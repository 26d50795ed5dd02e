// GET /openapi/v1/webhook/events (Gantry's extension): the events a team endpoint may
// subscribe to, so that clients (the console's endpoint form) need no copy of the list.
import { Type } from 'typebox';
import { WEBHOOK_EVENTS } from '../../../domain/webhooks/codes.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { TAGS, WEBHOOK_BASE } from './schemas.ts';

export default function listEventsRoute(app: App): void {
  app.get(`${WEBHOOK_BASE}/events`, {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageWebhooks' } },
    schema: {
      tags: TAGS, summary: 'The events a webhook endpoint may subscribe to', security: KeyBearer,
      response: { 200: Type.Object({ events: Type.Array(Type.String()) }), ...errors(401, 403) },
    },
  }, async () => ({ events: [...WEBHOOK_EVENTS] }));
}
