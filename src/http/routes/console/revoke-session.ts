import { Type } from 'typebox';
import { requirePersonSession, revokePersonSession, type Sessions } from '../../../domain/console/sessions.ts';
import { errors } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { sessionCredentials } from './schemas.ts';

export default function revokeSessionRoute(app: App, s: { sessions: Sessions }): void {
  app.delete('/console/sessions/:sessionId', {
    // public: the person's session cookie is the credential, checked here with its CSRF token
    config: { family: 'account', auth: { kind: 'public' } },
    schema: {
      tags: ['console'], summary: 'Sign one of the signed-in person\'s sessions out (on every replica, at once)',
      params: Type.Object({ sessionId: Type.String({ maxLength: 64 }) }),
      response: { 200: Type.Object({}), ...errors(401, 403, 404) },
    },
  }, async (req) => {
    const row = await requirePersonSession(s.sessions, ...sessionCredentials(req));
    await revokePersonSession(s.sessions, row, req.params.sessionId);
    return {};
  });
}
