import { Type } from 'typebox';
import { listInvitations } from '../../../domain/accounts/invitations.ts';
import type { Accounts } from '../../../domain/accounts/accounts.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { InvitationView } from './schemas.ts';

export default function listInvitationsRoute(app: App, s: { accounts: Accounts }): void {
  app.get('/console/invitations', {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageMembers' } },
    schema: {
      tags: ['accounts'], summary: 'The invitations of the caller\'s team, newest first', security: KeyBearer,
      response: { 200: Type.Object({ invitations: Type.Array(InvitationView) }), ...errors(401, 403) },
    },
  }, async (req) => ({ invitations: await listInvitations(s.accounts, principalOf(req)) }));
}
