import { Type } from 'typebox';
import { findSession, listPersonSessions, type Sessions } from '../../../domain/console/sessions.ts';
import { personSessionRequired } from '../../../domain/accounts/errors.ts';
import { sessionSecret } from '../../cookies.ts';
import { errors } from '../../schemas.ts';
import type { App } from '../../types.ts';

const SessionEntry = Type.Object({
  sessionId: Type.String(), current: Type.Boolean({ description: 'the session this request came with' }), teamId: Type.String(),
  userAgent: Type.String(), createdAt: Type.String(), expiresAt: Type.String(),
});

export default function listSessionsRoute(app: App, s: { sessions: Sessions }): void {
  app.get('/console/sessions', {
    // public: the person's session cookie is the credential, checked here
    config: { family: 'account', auth: { kind: 'public' } },
    schema: {
      tags: ['console'], summary: 'The signed-in person\'s console sessions, newest first',
      response: { 200: Type.Object({ sessions: Type.Array(SessionEntry) }), ...errors(401) },
    },
  }, async (req, reply) => {
    const row = await findSession(s.sessions, sessionSecret(req));
    if (row.kind !== 'person' || !row.personId) throw personSessionRequired();
    reply.header('cache-control', 'no-store');
    return { sessions: await listPersonSessions(s.sessions, { ...row, personId: row.personId }) };
  });
}
