// The terminal bridge (terminal-socket.ts) on a stand-in session, with no engine: what the
// browser sends reaches the session, resize control frames (and only valid ones) resize it,
// backpressure pauses the session's output while the browser does not read and loses nothing,
// the idle and lifetime limits close with their codes, the app closing closes with 1001, a
// shell that ends closes with 1000, and the browser closing closes the session. The same
// bridge on real engines: routes/compute/terminal.engines.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Duplex } from 'node:stream';
import WebSocket from 'ws';
import { TerminalSockets, type TerminalLimits } from './terminal-socket.ts';
import type { TerminalSession, TerminalSize } from '../drivers/types.ts';
import { until } from '../../test/helpers/wait.ts';

/** A session whose "shell" is the test: what the browser typed is `typed`, `shell.push()` is its output. */
class FakeSession implements TerminalSession {
  typed = '';
  sizes: TerminalSize[] = [];
  closed = 0;
  readonly stream: Duplex;
  /** how many times the bridge paused the output */
  pauses = 0;

  constructor() {
    const self = this;
    this.stream = new Duplex({
      read() {},
      write(chunk: Buffer, _enc, cb) {
        self.typed += chunk.toString('utf8');
        cb();
      },
    });
    const pause = this.stream.pause.bind(this.stream);
    this.stream.pause = () => {
      this.pauses++;
      return pause();
    };
  }

  async resize(size: TerminalSize): Promise<void> {
    this.sizes.push(size);
  }

  async close(): Promise<void> {
    this.closed++;
    this.stream.destroy();
  }
}

const log = { child: () => log, info() {}, warn() {}, error() {}, debug() {}, trace() {}, fatal() {}, level: 'silent', silent() {} } as never;

async function serve(limits: TerminalLimits): Promise<{ server: Server; sockets: TerminalSockets; url: string; next: () => FakeSession }> {
  const sockets = new TerminalSockets(log, () => limits);
  const sessions: FakeSession[] = [];
  const server = createServer();
  server.on('upgrade', (req, socket, head) => {
    const session = new FakeSession();
    sessions.push(session);
    sockets.accept(req, { socket, head }, { session, instanceId: 'ins_test', principal: { teamId: 't', memberId: 'm', keyId: 'k', role: 'Owner' } });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { server, sockets, url, next: () => sessions.at(-1)! };
}

function connect(url: string): Promise<{ ws: WebSocket; received: () => number; text: () => string; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    let bytes = 0;
    let text = '';
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    ws.on('message', (d: Buffer) => {
      bytes += d.length;
      if (text.length < 1000) text += d.toString('utf8');
    });
    ws.once('open', () => resolve({ ws, received: () => bytes, text: () => text, closed }));
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
  app.sockets.closeAll();
  assert.equal(await c.closed, 1001);
  await until('the session of a closing app is closed', () => app.next().closed === 1);

  const d = await connect(app.url);
  app.next().stream.push(null); // the shell exited: its stream ends
  assert.equal(await d.closed, 1000);
});
