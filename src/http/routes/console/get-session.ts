import { describeSession, findSession, type Sessions } from '../../../domain/console/sessions.ts';
import { sessionSecret } from '../../cookies.ts';
import { errors } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { SessionView, sessionAnswer } from './schemas.ts';

export default function getSession(app: App, s: { sessions: Sessions }): void {
  app.get('/console/session', {
    // public: the session cookie is the credential, checked here
    config: { family: 'account', auth: { kind: 'public' } },
    schema: {
      tags: ['console'], summary: 'The console session the cookie names (who it acts as, its CSRF token), or 401',
      response: { 200: SessionView, ...errors(401, 403) },
    },
  }, async (req, reply) => {
    const row = await findSession(s.sessions, sessionSecret(req));
    reply.header('cache-control', 'no-store');
    return sessionAnswer(await describeSession(s.sessions, row));
  });
}
