import { Type } from 'typebox';
import { resendInvitation } from '../../../domain/accounts/invitations.ts';
import type { Accounts } from '../../../domain/accounts/accounts.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { InvitationView } from './schemas.ts';

export default function resendInvitationRoute(app: App, s: { accounts: Accounts }): void {
  app.post('/console/invitations/:invitationId/resend', {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageMembers' } },
    schema: {
      tags: ['accounts'], summary: 'Send a pending (or expired) invitation again: a new link, valid 7 days from now; the links sent before stop working', security: KeyBearer,
      params: Type.Object({ invitationId: Type.String({ maxLength: 64 }) }),
      response: { 200: InvitationView, ...errors(401, 403, 404) },
    },
  }, async (req) => resendInvitation(s.accounts, principalOf(req), req.params.invitationId));
}
