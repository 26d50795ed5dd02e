import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CSRF_HEADER, type OpenedSession, type SessionView as View } from '../../../domain/console/sessions.ts';
import { sessionSecret, setSessionCookie } from '../../cookies.ts';
import type { Config } from '../../../config.ts';
import type { Ctx } from '../../../domain/context.ts';
import { CAPABILITIES, can, type Capability } from '../../../domain/roles.ts';

export const SessionView = Type.Object({
  kind: Type.Union([Type.Literal('key'), Type.Literal('operator'), Type.Literal('person')]),
  csrfToken: Type.String({ description: 'send it in x-csrf-token with every change made through the session' }),
  expiresAt: Type.String({ description: 'ISO 8601' }),
  capabilities: Type.Array(Type.String(), { description: 'what the key\'s role may do (the API\'s role table); empty for the operator' }),
  principal: Type.Optional(Type.Object({
    teamId: Type.String(), memberId: Type.String(), keyId: Type.String({ description: 'a person session: the session\'s own id (ses_…), under which what it does is recorded' }), role: Type.String(),
  })),
  person: Type.Optional(Type.Object({
    personId: Type.String(), email: Type.String(), emailVerified: Type.Boolean(),
    twoFactor: Type.Object({ enabled: Type.Boolean(), recoveryCodesLeft: Type.Integer() }),
    teams: Type.Array(Type.Object({ teamId: Type.String(), name: Type.String(), memberId: Type.String(), role: Type.String(), status: Type.String(), requiresTwoFactor: Type.Boolean() }), { description: 'the teams the person holds a seat in (the team switcher)' }),
  })),
  operator: Type.Optional(Type.Object({
    grantId: Type.String(), twoFactorRequired: Type.Boolean({ description: 'true: the operator views stay closed until the person turns two-factor sign-in on' }),
  }, { description: 'a person session of an operator account: its operator views (/admin/v1)' })),
});

export function sessionAnswer(v: View) {
  const capabilities = v.principal ? (Object.keys(CAPABILITIES) as Capability[]).filter((c) => can(v.principal!.role, c)) : [];
  return {
    kind: v.kind, csrfToken: v.csrfToken, expiresAt: new Date(v.expiresAtMs).toISOString(), capabilities,
    ...(v.principal ? { principal: v.principal } : {}), ...(v.person ? { person: v.person } : {}), ...(v.operator ? { operator: v.operator } : {}),
  };
}

/** A person session just opened (sign-in, a link followed, a team switched, a password changed): its cookie (SameSite=Lax), and its view. */
export function personSessionAnswer(req: FastifyRequest, reply: FastifyReply, opened: OpenedSession, s: { config: Config; ctx: Ctx }) {
  setSessionCookie(req, reply, opened.secret, opened.view.expiresAtMs - s.ctx.clock.nowMs(), s.config.console.secureCookie, 'Lax');
  reply.header('cache-control', 'no-store');
  return sessionAnswer(opened.view);
}

/** The session cookie and CSRF header of a request, as the person-session checks take them. */
export function sessionCredentials(req: FastifyRequest): [string | undefined, string | undefined] {
  const csrf = req.headers[CSRF_HEADER];
  return [sessionSecret(req), typeof csrf === 'string' ? csrf : undefined];
}
