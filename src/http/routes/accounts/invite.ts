import { Type } from 'typebox';
import { createInvitation } from '../../../domain/accounts/invitations.ts';
import type { Accounts } from '../../../domain/accounts/accounts.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { Email, InvitationView } from './schemas.ts';

export default function invite(app: App, s: { accounts: Accounts }): void {
  app.post('/console/invitations', {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageMembers' } },
    schema: {
      tags: ['accounts'], summary: 'Invite an address to the caller\'s team with a role (not Owner): a seat in status invited, and an invite link by e-mail; or a member without an account, to take their seat', security: KeyBearer,
      body: Type.Object({
        email: Email,
        role: Type.Optional(Type.String({ enum: ['Admin', 'Developer', 'Basic', 'Billing'], description: 'the new seat\'s; leave it out to invite a member who has no account yet to take their seat' })),
      }),
      response: { 200: InvitationView, ...errors(400, 401, 403, 409) },
    },
  }, async (req) => createInvitation(s.accounts, principalOf(req), req.body));
}
