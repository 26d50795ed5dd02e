// The shapes of the SSH key routes (add-ssh-key.ts, list-ssh-keys.ts, remove-ssh-key.ts).
import { Type } from 'typebox';

export const SshKeyView = Type.Object({
  sshKeyId: Type.String(),
  memberId: Type.String(),
  name: Type.String(),
  keyType: Type.String({ description: 'ssh-ed25519, ecdsa-sha2-nistp256/384/521 or ssh-rsa' }),
  fingerprint: Type.String({ description: 'SHA256:… as ssh-keygen -lf prints it' }),
  publicKey: Type.String({ description: 'the key as an authorized_keys line, without its comment' }),
  createdAt: Type.String(),
});
export const SshKeyIdParams = Type.Object({ sshKeyId: Type.String({ minLength: 1, maxLength: 64 }) });
