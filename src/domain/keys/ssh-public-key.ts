// An OpenSSH public key as a member pastes it (an authorized_keys line, `~/.ssh/id_*.pub`):
// `<type> <base64 blob> [comment]`. The blob is read field by field (RFC 4253 §6.6, RFC 5656
// §3.1, RFC 8709 §4) and handed to node:crypto as a JWK, so a key that is not a real point or
// modulus is refused here, not at the first SSH authentication. The fingerprint is what
// `ssh-keygen -lf` prints: SHA256 of the blob, base64 without padding.
import { createHash, createPublicKey } from 'node:crypto';
import { invalid } from '../../lib/errors.ts';

export const SSH_KEY_TYPES = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'ssh-rsa'] as const;
export type SshKeyType = (typeof SSH_KEY_TYPES)[number];

/** RSA below this many bits is refused (NIST SP 800-131A; OpenSSH's own minimum is 1024). */
export const RSA_MIN_BITS = 2048;
const RSA_MAX_BITS = 16384;
const FIELD = 'publicKey';

const CURVES: Record<string, { crv: string; name: string; coordBytes: number }> = {
  'ecdsa-sha2-nistp256': { crv: 'P-256', name: 'nistp256', coordBytes: 32 },
  'ecdsa-sha2-nistp384': { crv: 'P-384', name: 'nistp384', coordBytes: 48 },
  'ecdsa-sha2-nistp521': { crv: 'P-521', name: 'nistp521', coordBytes: 66 },
};

export interface SshPublicKey {
  keyType: SshKeyType;
  /** the wire blob, base64 */
  blob: string;
  /** SHA256:… */
  fingerprint: string;
  /** RSA modulus bits; 256/384/521 for ECDSA; 256 for Ed25519 */
  bits: number;
  comment: string;
}

/** Reads the length-prefixed strings of an SSH wire blob, refusing anything left over or cut short. */
function readFields(blob: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at < blob.length) {
    if (at + 4 > blob.length) throw invalid(FIELD, 'key data is cut short');
    const n = blob.readUInt32BE(at);
    if (at + 4 + n > blob.length) throw invalid(FIELD, 'key data is cut short');
    out.push(blob.subarray(at + 4, at + 4 + n));
    at += 4 + n;
  }
  return out;
}

const b64url = (b: Buffer) => b.toString('base64url');

/** An mpint without its sign byte (RFC 4251 §5); negative values are refused. */
function unsigned(mpint: Buffer): Buffer {
  if (mpint.length > 0 && (mpint[0]! & 0x80)) throw invalid(FIELD, 'RSA values must be positive');
  let i = 0;
  while (i < mpint.length - 1 && mpint[i] === 0) i++;
  return mpint.subarray(i);
}

function bitLength(n: Buffer): number {
  if (n.length === 0 || (n.length === 1 && n[0] === 0)) return 0;
  return (n.length - 1) * 8 + (32 - Math.clz32(n[0]!));
}

/** Checks the fields of one key type; answers its size in bits and the JWK node:crypto verifies. */
function judgeFields(keyType: SshKeyType, f: Buffer[]): { bits: number; jwk: Record<string, string> } {
  if (keyType === 'ssh-ed25519') {
    if (f.length !== 2 || f[1]!.length !== 32) throw invalid(FIELD, 'an ssh-ed25519 key is 32 bytes');
    return { bits: 256, jwk: { kty: 'OKP', crv: 'Ed25519', x: b64url(f[1]!) } };
  }
  if (keyType === 'ssh-rsa') {
    if (f.length !== 3) throw invalid(FIELD, 'an ssh-rsa key has an exponent and a modulus');
    const e = unsigned(f[1]!);
    const n = unsigned(f[2]!);
    const bits = bitLength(n);
    if (bits < RSA_MIN_BITS) throw invalid(FIELD, `RSA keys must be at least ${RSA_MIN_BITS} bits (this one is ${bits})`);
    if (bits > RSA_MAX_BITS) throw invalid(FIELD, `RSA keys must be at most ${RSA_MAX_BITS} bits`);
    return { bits, jwk: { kty: 'RSA', n: b64url(n), e: b64url(e) } };
  }
  const curve = CURVES[keyType]!;
  const point = f[2];
  if (f.length !== 3 || f[1]!.toString('latin1') !== curve.name || !point) throw invalid(FIELD, `an ${keyType} key names curve ${curve.name} and a point`);
  if (point.length !== 1 + 2 * curve.coordBytes || point[0] !== 4) throw invalid(FIELD, `an ${keyType} point is uncompressed and ${1 + 2 * curve.coordBytes} bytes`);
  const x = point.subarray(1, 1 + curve.coordBytes);
  const y = point.subarray(1 + curve.coordBytes);
  return { bits: Number(curve.crv.slice(2)), jwk: { kty: 'EC', crv: curve.crv, x: b64url(x), y: b64url(y) } };
}

export function sshFingerprint(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** Parses and judges one public key line; refusals name the field and the rule. */
export function parseSshPublicKey(line: string): SshPublicKey {
  const parts = line.trim().split(/\s+/);
  const [type, data] = parts;
  if (!type || !data) throw invalid(FIELD, 'must be an OpenSSH public key line: "<type> <base64> [comment]"');
  if (!(SSH_KEY_TYPES as readonly string[]).includes(type)) {
    throw invalid(FIELD, `key type must be one of ${SSH_KEY_TYPES.join(', ')} (got ${type.slice(0, 40)})`);
  }
  const keyType = type as SshKeyType;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(data) || data.length % 4 !== 0) throw invalid(FIELD, 'key data must be base64');
  const blob = Buffer.from(data, 'base64');
  const f = readFields(blob);
  if (f[0]?.toString('latin1') !== keyType) throw invalid(FIELD, `key data is not an ${keyType} key`);
  const { bits, jwk } = judgeFields(keyType, f);
  try {
    createPublicKey({ key: jwk, format: 'jwk' });
  } catch {
    throw invalid(FIELD, `key data is not a valid ${keyType} key`);
  }
  return { keyType, blob: blob.toString('base64'), fingerprint: sshFingerprint(blob), bits, comment: parts.slice(2).join(' ') };
}
