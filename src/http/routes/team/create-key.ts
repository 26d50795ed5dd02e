import { Type } from 'typebox';
import { createKey } from '../../../domain/keys/keys.ts';
import { CreatedKey, errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App, type Services } from '../../types.ts';

export default function createOwnKey(app: App, s: Pick<Services, 'ctx'>): void {
  app.post('/openapi/v1/user/keys', {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageOwnKeys' } },
    schema: {
      tags: ['team'], summary: 'Create an API key for the caller (the secret is shown once)', security: KeyBearer,
      body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 255 }) }),
      response: { 200: CreatedKey, ...errors(400, 401, 403) },
    },
  }, async (req) => createKey(s.ctx, principalOf(req).memberId, req.body.name));
}
