import { Type } from 'typebox';
import { bad } from '../../../domain/compute/errors.ts';
import { openInstanceTerminal, TERMINAL_PATH, type Terminals } from '../../../domain/terminals/terminals.ts';
import { errors } from '../../schemas.ts';
import { acceptUpgrades, isWebSocketHandshake, pendingUpgrade, TerminalSockets } from '../../terminal-socket.ts';
import type { App } from '../../types.ts';

/**
 * The web terminal of a running instance: a WebSocket (http/terminal-socket.ts) to a shell in
 * it. Browsers cannot send Authorization on a WebSocket: the URL's ticket (GET /gpu/instance's
 * connectComponentWebTerminal.url) is the credential, checked again at connect (domain/terminals).
 */
export default function connectInstanceTerminalRoute(app: App, s: { terminals: Terminals }): void {
  const sockets = new TerminalSockets(app.log, () => s.terminals.limits);
  acceptUpgrades(app, TERMINAL_PATH);
  app.addHook('preClose', (done) => {
    sockets.closeAll();
    done();
  });
  app.get(TERMINAL_PATH, {
    // public: the ticket, signed and short-lived, stands for the key or session that asked for it
    config: { family: 'gpu', auth: { kind: 'public' } },
    schema: {
      tags: ['gpu-instances'],
      summary: 'Open a running instance\'s web terminal (WebSocket; the URL is connectComponentWebTerminal.url of GET /gpu/instance)',
      description: 'Binary frames carry the terminal\'s bytes both ways; a text frame `{"type":"resize","cols":C,"rows":R}` resizes it. '
        + 'The ticket is used once and expires in minutes; the caller must still be allowed to operate the instance when connecting, '
        + 'and the terminal is closed (code 4003) once it no longer is. 429 when the instance or the team has the most terminals open it may.',
      querystring: Type.Object({
        ticket: Type.String({ minLength: 1, maxLength: 2048, description: 'the ticket of connectComponentWebTerminal.url' }),
        cols: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'the terminal\'s width at the start (default 80)' })),
        rows: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'its height (default 24)' })),
      }),
      // 101: the answer is the WebSocket handshake (the reply is hijacked; nothing is serialized)
      response: { 101: Type.Null({ description: 'Switching Protocols: the terminal\'s WebSocket' }), ...errors(400, 401, 403, 429) },
    },
  }, async (req, reply) => {
    const upgrade = pendingUpgrade(req.raw);
    // checked before the ticket, which a refused handshake would otherwise use up
    if (!upgrade || !isWebSocketHandshake(req.raw)) throw bad('Upgrade', 'connect with a WebSocket (Upgrade: websocket)');
    const opened = await openInstanceTerminal(s.terminals, req.query.ticket, { cols: req.query.cols ?? 80, rows: req.query.rows ?? 24 });
    reply.hijack();
    sockets.accept(req.raw, upgrade, opened);
  });
}
