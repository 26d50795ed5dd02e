import { removeSshKey } from '../../../domain/keys/ssh-keys.ts';
import { Empty, errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';
import { SshKeyIdParams } from './ssh-key-schemas.ts';

export default function removeMemberSshKey(app: App, s: { ctx: Ctx }): void {
  app.delete('/openapi/v1/user/ssh-keys/:sshKeyId', {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageOwnKeys' } },
    schema: {
      tags: ['team'], summary: "Remove an SSH key (own keys; Owner/Admin: any of the team's, an Owner's only by the Owner); its open SSH sessions close", security: KeyBearer,
      params: SshKeyIdParams,
      response: { 200: Empty, ...errors(401, 403, 404) },
    },
  }, async (req) => {
    await removeSshKey(s.ctx, principalOf(req), req.params.sshKeyId);
    return {};
  });
}
