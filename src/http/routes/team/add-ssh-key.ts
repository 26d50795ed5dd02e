import { Type } from 'typebox';
import { addSshKey } from '../../../domain/keys/ssh-keys.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';
import { SshKeyView } from './ssh-key-schemas.ts';

export default function addOwnSshKey(app: App, s: { ctx: Ctx }): void {
  // Registering needs the right to operate instances (SSH reaches nothing else); a key is a
  // person's credential, so it is always the caller's own.
  app.post('/openapi/v1/user/ssh-keys', {
    config: { family: 'account', auth: { kind: 'key', capability: 'changeCompute' } },
    schema: {
      tags: ['team'], summary: "Register an SSH public key for the caller (ed25519, ECDSA, RSA >= 2048 bits): SSH into the team's instances with it", security: KeyBearer,
      body: Type.Object({
        publicKey: Type.String({ minLength: 1, maxLength: 16384, description: 'an OpenSSH public key line, as in ~/.ssh/id_ed25519.pub' }),
        name: Type.Optional(Type.String({ maxLength: 255, description: "default: the key's comment, else its fingerprint" })),
      }),
      response: { 200: SshKeyView, ...errors(400, 401, 403, 404, 409) },
    },
  }, async (req) => addSshKey(s.ctx, principalOf(req), req.body));
}
