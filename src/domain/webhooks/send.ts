// One HTTP attempt of a webhook delivery: POST the signed body, no redirects followed (a 3xx
// is a failure), a timeout, and no private address reached unless the operator allows it
// (GANTRY_WEBHOOK_ALLOW_PRIVATE). The host is resolved here, every address it resolves to is
// checked, and the connection goes to the address checked (the agent's lookup is pinned to
// it): a name that resolves to a public address when checked and a private one when
// connecting (DNS rebinding) cannot slip through.
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Agent } from 'undici';
import { loadUndici, undiciLoaded } from '../../lib/undici.ts';
import { isPrivateAddress } from '../../lib/private-address.ts';
import { MAX_ERROR_CHARS } from './codes.ts';

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  /** the job's signal: the runner stopping or the lease lost */
  signal?: AbortSignal | undefined;
}

export interface SendResult {
  ok: boolean;
  /** the receiver's status; null when no answer came (refused, timeout, connection error) */
  status: number | null;
  latencyMs: number;
  /** why it failed (null when ok), as the team's delivery log tells it */
  error: string | null;
  /** more of why, for the operator only (the address a refused host resolves to) */
  operatorDetail?: string;
}

/** A host refused before any connection; `message` is the tenant's, `detail` the operator's. */
class AddressRefused extends Error {
  readonly detail: string;
  constructor(message: string, detail: string) {
    super(message);
    this.detail = detail;
  }
}

const USER_AGENT = 'Gantry-Webhooks/1';
const MAX_READ_BYTES = 4096;

type Address = { address: string; family: 4 | 6 };

/** The addresses the host resolves to, every one checked; an Error saying why not. */
async function resolve(host: string, allowPrivate: boolean): Promise<Address[]> {
  const bare = host.startsWith('[') ? host.slice(1, -1) : host;
  const literal = isIP(bare);
  const found = literal ? [{ address: bare, family: literal as 4 | 6 }] : (await dnsLookup(bare, { all: true, verbatim: true })) as Address[];
  if (!found.length) throw new Error(`${host} resolves to no address`);
  if (!allowPrivate) {
    const bad = found.find((a) => isPrivateAddress(a.address));
    // the team is told no more than "not allowed": what a name resolves to inside the network is not theirs to learn
    if (bad) {
      throw new AddressRefused(`${host}: the address is not allowed`,
        `${host} resolves to ${bad.address}, a private, loopback or link-local address: refused (GANTRY_WEBHOOK_ALLOW_PRIVATE is off)`);
    }
  }
  return found;
}

/** A lookup that answers only the addresses checked (all of them when asked: happy eyeballs tries each). */
function pinned(to: Address[]): LookupFunction {
  return ((_host: string, opts: { all?: boolean }, cb: (err: Error | null, address: unknown, family?: number) => void) => {
    if (opts?.all) cb(null, to);
    else cb(null, to[0]!.address, to[0]!.family);
  }) as unknown as LookupFunction;
}

async function readSome(body: AsyncIterable<Buffer>): Promise<string> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const chunk of body) {
    parts.push(chunk);
    n += chunk.length;
    if (n >= MAX_READ_BYTES) break; // the rest is not read (the connection is closed)
  }
  return Buffer.concat(parts).toString('utf8').slice(0, MAX_ERROR_CHARS);
}

export async function sendWebhook(url: string, headers: Record<string, string>, body: string, opts: SendOptions): Promise<SendResult> {
  const { Agent, request } = undiciLoaded() ?? await loadUndici(); // before the clock starts: the first load is ours, not the receiver's
  const started = performance.now();
  const done = (r: Omit<SendResult, 'latencyMs'>): SendResult => ({ ...r, latencyMs: Math.round(performance.now() - started) });
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  let agent: Agent | undefined;
  try {
    const u = new URL(url);
    const to = await resolve(u.hostname, opts.allowPrivate);
    agent = new Agent({ connect: { lookup: pinned(to), timeout: opts.timeoutMs }, pipelining: 0 });
    const res = await request(u, {
      method: 'POST', dispatcher: agent, signal,
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...headers },
      body,
    });
    const text = await readSome(res.body);
    if (res.statusCode >= 200 && res.statusCode < 300) return done({ ok: true, status: res.statusCode, error: null });
    const location = res.headers.location;
    const why = res.statusCode >= 300 && res.statusCode < 400
      ? `HTTP ${res.statusCode}: redirects are not followed${location ? ` (Location: ${String(location).slice(0, 200)})` : ''}`
      : `HTTP ${res.statusCode}${text ? `: ${text}` : ''}`;
    return done({ ok: false, status: res.statusCode, error: why.slice(0, MAX_ERROR_CHARS) });
  } catch (err) {
    if (timeout.aborted) return done({ ok: false, status: null, error: `timed out after ${opts.timeoutMs} ms` });
    if (opts.signal?.aborted) throw err; // not the receiver's failure: the runner handles it
    if (err instanceof AddressRefused) return done({ ok: false, status: null, error: err.message.slice(0, MAX_ERROR_CHARS), operatorDetail: err.detail });
    const e = err as Error & { code?: string };
    return done({ ok: false, status: null, error: `${e.code ? `${e.code}: ` : ''}${e.message}`.slice(0, MAX_ERROR_CHARS) });
  } finally {
    void agent?.destroy().catch(() => {});
  }
}
