// The console's session cookie: read from the Cookie header, written HttpOnly and
// SameSite=Strict (a page of another site never sends it), Secure where the console is
// served over https.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '../domain/console/sessions.ts';

/**
 * Whether a cookie name is in Gantry's namespace (`gantry_…`, any case, with or without a
 * `__Host-`/`__Secure-` prefix): the serverless proxy never passes one to a worker nor
 * lets a worker set one.
 */
export function isGantryCookieName(name: string): boolean {
  return /^(__host-|__secure-)?gantry_/i.test(name.trim());
}

/** A Cookie header without Gantry's cookies (undefined when nothing is left). */
export function withoutGantryCookies(header: string): string | undefined {
  const kept = header.split(';').map((p) => p.trim()).filter((p) => p !== '' && !isGantryCookieName(p.split('=', 1)[0]!));
  return kept.length ? kept.join('; ') : undefined;
}

/** The value of the session cookie, if the request carries one. */
export function sessionSecret(req: FastifyRequest): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const v = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{1,128}$/.test(v) ? v : undefined;
    }
  }
  return undefined;
}

function attributes(req: FastifyRequest, secure: boolean, maxAgeS: number): string {
  const https = secure || req.protocol === 'https';
  return `Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${https ? '; Secure' : ''}`;
}

export function setSessionCookie(req: FastifyRequest, reply: FastifyReply, secret: string, maxAgeMs: number, secure: boolean): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=${secret}; ${attributes(req, secure, Math.max(0, Math.floor(maxAgeMs / 1000)))}`);
}

export function clearSessionCookie(req: FastifyRequest, reply: FastifyReply, secure: boolean): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=; ${attributes(req, secure, 0)}`);
}
