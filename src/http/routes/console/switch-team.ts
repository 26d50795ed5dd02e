import { Type } from 'typebox';
import { requirePersonSession, switchTeam, type Sessions } from '../../../domain/console/sessions.ts';
import { errors } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { SessionView, personSessionAnswer, sessionCredentials } from './schemas.ts';
import type { Config } from '../../../config.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function switchTeamRoute(app: App, s: { config: Config; ctx: Ctx; sessions: Sessions }): void {
  app.post('/console/session/team', {
    // public: the person's session cookie is the credential, checked here with its CSRF token
    config: { family: 'account', auth: { kind: 'public' } },
    schema: {
      tags: ['console'], summary: 'Act in another of the signed-in person\'s teams: a new session cookie (the old one ends)',
      body: Type.Object({ teamId: Type.String({ minLength: 1, maxLength: 64 }) }),
      response: { 200: SessionView, ...errors(400, 401, 403) },
    },
  }, async (req, reply) => {
    const [secret, csrf] = sessionCredentials(req);
    const row = await requirePersonSession(s.sessions, secret, csrf);
    return personSessionAnswer(req, reply, await switchTeam(s.sessions, row, secret!, req.body.teamId, req.headers['user-agent']), s);
  });
}
