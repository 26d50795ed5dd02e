// The terminal bridge (terminal-socket.ts) on a stand-in session, with no engine: what the
// browser sends reaches the session, resize control frames (and only valid ones) resize it,
// backpressure pauses the session's output while the browser does not read and loses nothing,
// the idle and lifetime limits close with their codes, the app closing closes with 1001, a
// shell that ends closes with 1000, a caller who lost the right closes with 4003 and why, and
// the browser closing closes the session; every ending releases the live session. The same
// bridge on real engines: routes/compute/terminal.engines.test.ts; behind the real route:
// routes/compute/terminal-sessions.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { ACCESS_WITHDRAWN, TerminalSockets, type TerminalLimits } from './terminal-socket.ts';
import { LiveSession } from '../domain/live-sessions/live-sessions.ts';
import { terminalForbidden } from '../domain/terminals/errors.ts';
import { FakeSession } from '../../test/helpers/fake-terminal.ts';
import { until } from '../../test/helpers/wait.ts';

const log = { child: () => log, info() {}, warn() {}, error() {}, debug() {}, trace() {}, fatal() {}, level: 'silent', silent() {} } as never;

/** A live session that counts its releases. */
function liveSession(): LiveSession & { releases: number } {
  const counted = Object.assign(new LiveSession({ owner: { teamId: 't', memberId: 'm', keyId: 'k' }, limits: [], mayKeep() {} }, () => {
    counted.releases++;
  }), { releases: 0 });
  return counted;
}

async function serve(limits: TerminalLimits): Promise<{ server: Server; sockets: TerminalSockets; url: string; next: () => FakeSession; live: () => ReturnType<typeof liveSession> }> {
  const sockets = new TerminalSockets(log, () => limits);
  const sessions: FakeSession[] = [];
  const lives: ReturnType<typeof liveSession>[] = [];
  const server = createServer();
  server.on('upgrade', (req, socket, head) => {
    const session = new FakeSession();
    sessions.push(session);
    const live = liveSession();
    lives.push(live);
    sockets.accept(req, { socket, head }, { session, instanceId: 'ins_test', principal: { teamId: 't', memberId: 'm', keyId: 'k', role: 'Owner' }, live });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { server, sockets, url, next: () => sessions.at(-1)!, live: () => lives.at(-1)! };
}

function connect(url: string): Promise<{ ws: WebSocket; received: () => number; text: () => string; closed: Promise<number>; reason: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    let bytes = 0;
    let text = '';
    const closing = new Promise<[number, string]>((r) => ws.once('close', (code, reason) => r([code, reason.toString('utf8')])));
    const closed = closing.then(([code]) => code);
    ws.on('message', (d: Buffer) => {
      bytes += d.length;
      if (text.length < 1000) text += d.toString('utf8');
    });
    ws.once('open', () => resolve({ ws, received: () => bytes, text: () => text, closed, reason: closing.then(([, why]) => why) }));
    ws.once('error', reject);
  });
}

const LONG = { idleMs: 60_000, lifetimeMs: 60_000 };

test('keystrokes reach the session, output reaches the browser, valid resize frames resize it, the browser closing closes it', async (t) => {
  const { server, url, next } = await serve(LONG);
  t.after(() => server.close());
  const c = await connect(url);
  const s = next();
  c.ws.send(Buffer.from('echo hi\n'));
  await until('the keystrokes reach the session', () => s.typed === 'echo hi\n');
  s.stream.push('hi\r\n');
  await until('the output reaches the browser', () => c.text() === 'hi\r\n');
  for (const bad of ['not json', '{"type":"resize","cols":0,"rows":10}', '{"type":"resize","cols":10.5,"rows":10}', '{"type":"other"}', '[]', 'null']) c.ws.send(bad);
  c.ws.send(JSON.stringify({ type: 'resize', cols: 120, rows: 40 }));
  await until('the resize reaches the session', () => s.sizes.length > 0);
  assert.deepEqual(s.sizes, [{ cols: 120, rows: 40 }], 'only the valid control frame');
  assert.equal(s.typed, 'echo hi\n', 'text frames are never typed');
  c.ws.close();
  await until('the session is closed', () => s.closed === 1);
});

test('backpressure: the session\'s output pauses while the browser does not read, and nothing is lost', async (t) => {
  const { server, url, next } = await serve(LONG);
  t.after(() => server.close());
  const c = await connect(url);
  const s = next();
  const socket = (c.ws as unknown as { _socket: import('node:net').Socket })._socket;
  socket.pause(); // the browser stops reading
  const chunk = Buffer.alloc(256 * 1024, 'a');
  let sent = 0;
  await until('the bridge pauses the session\'s output', () => {
    if (s.pauses > 0) return true;
    s.stream.push(chunk);
    sent += chunk.length;
    return false;
  }, { limitMs: 20_000, everyMs: 5 });
  assert.ok(sent <= 64 * 1024 * 1024, `paused after ${sent} bytes`);
  socket.resume();
  await until('everything arrives once the browser reads again', () => c.received() === sent, { limitMs: 20_000 });
  assert.equal(s.stream.isPaused(), false, 'the output flows again');
  c.ws.close();
});

test('limits and endings: idle 4000, lifetime 4001, the app closing 1001, the shell ending 1000; each closes the session', async (t) => {
  const idle = await serve({ idleMs: 150, lifetimeMs: 60_000 });
  t.after(() => idle.server.close());
  const a = await connect(idle.url);
  assert.equal(await a.closed, 4000);
  await until('the idle session is closed', () => idle.next().closed === 1);

  const life = await serve({ idleMs: 60_000, lifetimeMs: 300 });
  t.after(() => life.server.close());
  const b = await connect(life.url);
  const keepBusy = setInterval(() => b.ws.readyState === WebSocket.OPEN && b.ws.send(Buffer.from('x')), 20); // never idle
  assert.equal(await b.closed, 4001);
  clearInterval(keepBusy);
  await until('the session at its lifetime is closed', () => life.next().closed === 1);

  const app = await serve(LONG);
  t.after(() => app.server.close());
  const c = await connect(app.url);
  const cLive = app.live();
  app.sockets.closeAll();
  assert.equal(await c.closed, 1001);
  await until('the session of a closing app is closed', () => app.next().closed === 1);

  const d = await connect(app.url);
  app.next().stream.push(null); // the shell exited: its stream ends
  assert.equal(await d.closed, 1000);
  await until('every ending released its live session once', () => [idle.live(), life.live(), cLive, app.live()].every((l) => l.releases === 1));
});

test('a caller who lost the right: 4003 with the refusal as the reason, the session closed and released once', async (t) => {
  const app = await serve(LONG);
  t.after(() => app.server.close());
  const c = await connect(app.url);
  const live = app.live();
  live.withdraw(terminalForbidden('Basic'));
  assert.equal(await c.closed, ACCESS_WITHDRAWN);
  assert.equal(await c.reason, 'role Basic may not open an instance\'s terminal');
  await until('the shell is closed', () => app.next().closed === 1);
  assert.equal(live.releases, 1);
  // withdrawn before the socket is bridged: closed as soon as it is
  const early = liveSession();
  early.withdraw(terminalForbidden('Billing'));
  const server = createServer();
  server.on('upgrade', (req, socket, head) => {
    app.sockets.accept(req, { socket, head }, { session: new FakeSession(), instanceId: 'ins_test', principal: { teamId: 't', memberId: 'm', keyId: 'k', role: 'Owner' }, live: early });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  const e = await connect(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  assert.equal(await e.closed, ACCESS_WITHDRAWN);
  assert.equal(early.releases, 1);
});
