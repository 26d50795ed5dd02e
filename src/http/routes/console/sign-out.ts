import { Type } from 'typebox';
import { checkCsrf, closeSession, CSRF_HEADER, findSession, type Sessions } from '../../../domain/console/sessions.ts';
import { clearSessionCookie, sessionSecret } from '../../cookies.ts';
import { errors } from '../../schemas.ts';
import type { App } from '../../types.ts';
import type { Config } from '../../../config.ts';

export default function signOut(app: App, s: { config: Config; sessions: Sessions }): void {
  app.delete('/console/session', {
    // public: the session cookie is the credential, checked here with its CSRF token
    config: { family: 'account', auth: { kind: 'public' } },
    schema: {
      tags: ['console'], summary: 'Sign out: the session ends server-side (the cookie is worthless afterwards)',
      response: { 200: Type.Object({}), ...errors(401, 403) },
    },
  }, async (req, reply) => {
    const row = await findSession(s.sessions, sessionSecret(req));
    const csrf = req.headers[CSRF_HEADER];
    checkCsrf(row, typeof csrf === 'string' ? csrf : undefined);
    await closeSession(s.sessions, row);
    clearSessionCookie(req, reply, s.config.console.secureCookie);
    return {};
  });
}
