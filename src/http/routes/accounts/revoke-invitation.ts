import { Type } from 'typebox';
import { revokeInvitation } from '../../../domain/accounts/invitations.ts';
import type { Accounts } from '../../../domain/accounts/accounts.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';

export default function revokeInvitationRoute(app: App, s: { accounts: Accounts }): void {
  app.delete('/console/invitations/:invitationId', {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageMembers' } },
    schema: {
      tags: ['accounts'], summary: 'Revoke a pending invitation: its link does nothing from now on and its seat is removed', security: KeyBearer,
      params: Type.Object({ invitationId: Type.String({ maxLength: 64 }) }),
      response: { 200: Type.Object({}), ...errors(401, 403, 404) },
    },
  }, async (req) => {
    await revokeInvitation(s.accounts, principalOf(req), req.params.invitationId);
    return {};
  });
}
