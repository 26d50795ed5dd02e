// The console's session cookie: read from the Cookie header, written HttpOnly, Secure where
// the console is served over https, and SameSite=Strict for a key's or the operator's session
// (a page of another site never sends it) or SameSite=Lax for a person's (a link in an e-mail
// opens the console signed in; changes still need the session's CSRF token).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '../domain/console/sessions.ts';

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

function attributes(req: FastifyRequest, secure: boolean, maxAgeS: number, sameSite: 'Strict' | 'Lax' = 'Strict'): string {
  const https = secure || req.protocol === 'https';
  return `Path=/; HttpOnly; SameSite=${sameSite}; Max-Age=${maxAgeS}${https ? '; Secure' : ''}`;
}

export function setSessionCookie(req: FastifyRequest, reply: FastifyReply, secret: string, maxAgeMs: number, secure: boolean, sameSite: 'Strict' | 'Lax' = 'Strict'): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=${secret}; ${attributes(req, secure, Math.max(0, Math.floor(maxAgeMs / 1000)), sameSite)}`);
}

export function clearSessionCookie(req: FastifyRequest, reply: FastifyReply, secure: boolean): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=; ${attributes(req, secure, 0)}`);
}
