import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { withDeadline, DeadlineExceeded } from './deadline.ts';

function holdLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* a long GC or a burst of work */ }
}

test('a reply that arrived while the event loop was held past the limit is not a timeout', async (t) => {
  // the echo runs on its own thread, so it answers while this thread's loop is held
  const echo = new Worker(`
    const { createServer } = require('node:net');
    const { parentPort } = require('node:worker_threads');
    const server = createServer((s) => s.on('data', (d) => s.write(d)));
    server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
  `, { eval: true });
  t.after(() => echo.terminate());
  const [port] = (await once(echo, 'message')) as [number];
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  t.after(() => socket.destroy());

  const reply = new Promise<string>((resolve) => socket.once('data', (d) => resolve(String(d))));
  const guarded = withDeadline(reply, 50);
  socket.write('ping');
  holdLoop(200); // the echo arrives within a millisecond, but is read only after this
  assert.equal(await guarded, 'ping');

  // the same shape with a plain timer is what failed: it fires before the socket is read
  const reply2 = new Promise<string>((resolve) => socket.once('data', (d) => resolve(String(d))));
  const plain = Promise.race([reply2, new Promise<string>((resolve) => setTimeout(() => resolve('timed out'), 50))]);
  socket.write('pong');
  holdLoop(200);
  assert.equal(await plain, 'timed out');
});

test('a reply that never comes fails after the limit', async () => {
  const started = performance.now();
  await assert.rejects(withDeadline(new Promise(() => {}), 30), DeadlineExceeded);
  assert.ok(performance.now() - started >= 29);
});

test('a rejection is passed on as it is', async () => {
  const err = new Error('refused');
  await assert.rejects(withDeadline(Promise.reject(err), 30), (e) => e === err);
});
