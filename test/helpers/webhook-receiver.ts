// A webhook receiver for tests: node:http on 127.0.0.1, answering each request with the next
// of the answers it was given (the last one repeats), recording what came. Its own Standard
// Webhooks verification, written from the specification, not from Gantry's signer.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  path: string;
}

/** 200, 500, …; `redirect` answers 302 to `to`; `hang` never answers (a timeout). */
export type Answer = number | { redirect: string } | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  /** the answers to give from now on, in order (the last one repeats) */
  answer(...answers: Answer[]): void;
  close(): Promise<void>;
}

export async function startReceiver(...answers: Answer[]): Promise<Receiver> {
  let queue: Answer[] = answers.length ? answers : [200];
  const received: Received[] = [];
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), path: req.url ?? '/' });
      const a = queue.length > 1 ? queue.shift()! : queue[0]!;
      if (a === 'hang') {
        hanging.add(res);
        return;
      }
      if (typeof a === 'object') {
        res.writeHead(302, { location: a.redirect }).end();
        return;
      }
      res.writeHead(a, { 'content-type': 'text/plain' }).end(a >= 300 ? `receiver says ${a}` : 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    answer: (...a: Answer[]) => {
      queue = a;
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Standard Webhooks verification: the secret's bytes are the base64 after `whsec_`; the
 * signed content is `${webhook-id}.${webhook-timestamp}.${body}`; `webhook-signature` is a
 * space-separated list of `v1,<base64 HMAC-SHA256>`; one matching signature is enough, and
 * the timestamp must be within 5 minutes of `nowS`.
 */
export function verifyStandardWebhook(secret: string, headers: IncomingHttpHeaders, body: string, nowS: number): boolean {
  const id = String(headers['webhook-id'] ?? '');
  const ts = String(headers['webhook-timestamp'] ?? '');
  const sigs = String(headers['webhook-signature'] ?? '');
  if (!id || !/^\d+$/.test(ts) || Math.abs(Number(ts) - nowS) > 300) return false;
  const key = Buffer.from(secret.slice(secret.indexOf('_') + 1), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest();
  return sigs.split(' ').some((part) => {
    const [version, sig] = part.split(',', 2);
    if (version !== 'v1' || !sig) return false;
    const got = Buffer.from(sig, 'base64');
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}
