import { Type } from 'typebox';
import type { SessionView as View } from '../../../domain/console/sessions.ts';
import { CAPABILITIES, can, type Capability } from '../../../domain/roles.ts';

export const SessionView = Type.Object({
  kind: Type.Union([Type.Literal('key'), Type.Literal('operator')]),
  csrfToken: Type.String({ description: 'send it in x-csrf-token with every change made through the session' }),
  expiresAt: Type.String({ description: 'ISO 8601' }),
  capabilities: Type.Array(Type.String(), { description: 'what the key\'s role may do (the API\'s role table); empty for the operator' }),
  principal: Type.Optional(Type.Object({ teamId: Type.String(), memberId: Type.String(), keyId: Type.String(), role: Type.String() })),
});

export function sessionAnswer(v: View) {
  const capabilities = v.principal ? (Object.keys(CAPABILITIES) as Capability[]).filter((c) => can(v.principal!.role, c)) : [];
  return { kind: v.kind, csrfToken: v.csrfToken, expiresAt: new Date(v.expiresAtMs).toISOString(), capabilities, ...(v.principal ? { principal: v.principal } : {}) };
}
