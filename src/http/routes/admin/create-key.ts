import { Type } from 'typebox';
import { createKey } from '../../../domain/keys/keys.ts';
import { CreatedKey, errors, MemberIdParams, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function createKeyRoute(app: App, s: { ctx: Ctx }): void {
  app.post('/admin/v1/members/:memberId/keys', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Create an API key for a member (the secret is shown once)', security: OperatorBearer,
      params: MemberIdParams,
      body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 255 }) }),
      response: { 200: CreatedKey, ...errors(400, 401, 404) },
    },
  }, async (req) => createKey(s.ctx, req.params.memberId, req.body.name));
}
