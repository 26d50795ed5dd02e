import { Type } from 'typebox';
import { listSshKeys } from '../../../domain/keys/ssh-keys.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';
import { SshKeyView } from './ssh-key-schemas.ts';

export default function listMemberSshKeys(app: App, s: { ctx: Ctx }): void {
  // manageOwnKeys, not changeCompute: a member demoted to Basic still sees and removes its keys
  app.get('/openapi/v1/user/ssh-keys', {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageOwnKeys' } },
    schema: {
      tags: ['team'], summary: 'List the SSH keys of a member (default: the caller; another member: Owner/Admin) with their fingerprints', security: KeyBearer,
      querystring: Type.Object({ member_id: Type.Optional(Type.String({ maxLength: 255 })) }),
      response: { 200: Type.Object({ sshKeys: Type.Array(SshKeyView) }), ...errors(401, 403, 404) },
    },
  }, async (req) => {
    const p = principalOf(req);
    return { sshKeys: await listSshKeys(s.ctx, p, req.query.member_id || p.memberId) };
  });
}
