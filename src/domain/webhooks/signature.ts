// Standard Webhooks signatures (https://www.standardwebhooks.com): a secret is `whsec_` and
// the base64 of random bytes; a delivery carries `webhook-id`, `webhook-timestamp` (Unix
// seconds of the attempt) and `webhook-signature`: `v1,` and the base64 HMAC-SHA256, keyed
// with the secret's bytes, of `id.timestamp.body`; several signatures are separated by a
// space (during a rotation: the new secret's first, then the previous one's).
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

export function newSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

export function signOne(secret: string, id: string, timestampS: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampS}.${body}`).digest('base64')}`;
}

/** The three headers of one attempt, signed with every secret given (in order). */
export function signedHeaders(secrets: readonly string[], id: string, timestampS: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampS),
    'webhook-signature': secrets.map((s) => signOne(s, id, timestampS, body)).join(' '),
  };
}
