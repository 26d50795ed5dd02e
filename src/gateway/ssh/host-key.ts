// The SSH endpoint's host key: one ed25519 key for the whole deployment, made by the first
// replica that needs it and kept in the store (the `settings` row `ssh.hostKey`), sealed with
// the data dir's sealing key (GANTRY_SECRET_KEY) as registry credentials are: every replica and
// every restart presents the same key, so a client's known_hosts entry stays right. Its
// fingerprint (what `ssh-keygen -lf` and a first connection print) is published in
// connectComponentSSH.hostKeyFingerprint.
import { createHash } from 'node:crypto';
import ssh2 from 'ssh2';
import type { Ctx } from '../../domain/context.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { claimSetting, getSetting } from '../../store/settings.ts';
import type { PublicKeyAuthContext } from 'ssh2';
import { sshRefused } from './errors.ts';

const SETTING = 'ssh.hostKey';

export interface HostKey {
  /** the private key, OpenSSH format (what the server presents) */
  privateKey: string;
  /** `ssh-ed25519 AAAA…`: a known_hosts line's key part */
  publicKey: string;
  /** SHA256:… of the public key's blob, base64 without padding */
  fingerprint: string;
}

/** The deployment's host key: the stored one, or a new one stored first (the first replica's wins a race). */
export async function loadHostKey(ctx: Ctx, secrets: SecretBox): Promise<HostKey> {
  let stored = await getSetting<{ sealed: string }>(ctx.db, SETTING);
  if (!stored) {
    await claimSetting(ctx.db, SETTING, { sealed: secrets.seal(newEd25519Key().private) });
    stored = await getSetting<{ sealed: string }>(ctx.db, SETTING);
    if (!stored) throw new Error('the SSH host key could not be stored');
  }
  return describeHostKey(secrets.open(stored.sealed));
}

/**
 * A new ed25519 key pair in OpenSSH's format, one ssh2 reads back: about 1 in 200 of those
 * ssh2's generator writes its own parser refuses ("Malformed OpenSSH private key", measured:
 * 29 of 6000; its keygen strips a public key's leading zero byte, mscdex/ssh2#1390, open in
 * 1.17.0), and a host key stored so would break every start after; so a pair is taken only
 * once both halves parse (a few tries at most).
 */
export function newEd25519Key(comment = ''): { private: string; public: string } {
  for (let attempt = 0; ; attempt++) {
    const made = ssh2.utils.generateKeyPairSync('ed25519', { comment });
    if (!(ssh2.utils.parseKey(made.private) instanceof Error) && !(ssh2.utils.parseKey(made.public) instanceof Error)) return made;
    if (attempt >= 20) throw new Error('ssh2 made no ed25519 key it can read in 20 tries');
  }
}

/** The public half and fingerprint of a private key. */
export function describeHostKey(privateKey: string): HostKey {
  const parsed = ssh2.utils.parseKey(privateKey);
  if (parsed instanceof Error) throw parsed;
  const blob = parsed.getPublicSSH();
  return { privateKey, publicKey: `${parsed.type} ${blob.toString('base64')}`, fingerprint: fingerprintOf(blob) };
}

/** What `ssh-keygen -l` prints for a key blob. */
export function fingerprintOf(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** A publickey attempt's signature over the session's data, checked with the key offered (ssh2 leaves it to the server). */
export function verifySignature(auth: PublicKeyAuthContext): void {
  const key = ssh2.utils.parseKey(auth.key.data);
  if (key instanceof Error || !auth.blob || !auth.signature || key.verify(auth.blob, auth.signature, auth.hashAlgo) !== true) {
    throw sshRefused('the key\'s signature does not verify');
  }
}
