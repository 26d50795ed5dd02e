// The kubernetes driver's exec() and terminal() (exec.ts) through the pod's `exec` subresource
// against the fake API server (fake-apiserver.ts), which speaks the real protocol (the
// WebSocket upgrade, v5.channel.k8s.io or v4, the channel bytes, the Status on channel 3) and
// runs the command as a local child process standing in for the container. Not run against a
// live cluster: the protocol is Kubernetes' as documented and as kubectl speaks it, the fake's
// side of it written from the same.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Readable } from 'node:stream';
import { until } from '../../../test/helpers/wait.ts';
import { baseSpec } from '../contract.ts';
import { TerminalUnavailable } from '../types.ts';
import { KubernetesDriver } from './driver.ts';
import { execArgv, exitCodeOf } from './exec.ts';
import { FakeApiServer } from './fake-apiserver.ts';
import { objectName } from './manifests.ts';

const NS = 'gantry';
const ID = 'ins_exec1';
const api = new FakeApiServer();
let driver: KubernetesDriver;
before(async () => {
  await api.start();
  driver = new KubernetesDriver(api.coreApi(), NS, api.kubeConfig());
  await driver.create(baseSpec(ID));
  api.setPodRunning(objectName(ID));
});
after(async () => {
  await driver.close();
  await api.close();
});

function text(r: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    let s = '';
    r.on('data', (d: Buffer) => (s += d.toString()));
    r.once('end', () => resolve(s));
    r.once('error', reject);
  });
}

test('a command: stdout, stderr and its exit code 3 from the NonZeroExitCode Status; 0 from Success; argv sent as is, over v5', async () => {
  api.execProtocols = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];
  const command = ['/bin/sh', '-c', 'echo out; echo "err $1" >&2; exit 3', 'sh', 'a b'];
  const p = await driver.exec(ID, { command });
  p.stdin.end();
  const [out, err] = await Promise.all([text(p.stdout), text(p.stderr)]);
  assert.deepEqual([out, err, await p.exited()], ['out\n', 'err a b\n', 3]);
  const e = api.execs.at(-1)!;
  assert.deepEqual([e.pod, e.container, e.command, e.tty, e.protocol], [objectName(ID), 'main', command, false, 'v5.channel.k8s.io']);
  const call = new URL(api.requests.findLast((r) => r.url.includes('/exec?'))!.url, 'http://x');
  assert.equal(call.pathname, `/api/v1/namespaces/${NS}/pods/${objectName(ID)}/exec`);
  assert.deepEqual([call.searchParams.get('stdin'), call.searchParams.get('stdout'), call.searchParams.get('stderr'), call.searchParams.get('tty')], ['true', 'true', 'true', 'false']);
  const ok = await driver.exec(ID, { command: ['true'] });
  await text(ok.stdout);
  assert.equal(await ok.exited(), 0);
});

test('stdin is piped, and its end reaches the process as EOF (v5 close frame); a large input streams through whole', async () => {
  const p = await driver.exec(ID, { command: ['wc', '-c'] });
  const chunk = Buffer.alloc(1 << 20, 'x');
  for (let i = 0; i < 8; i++) {
    if (!p.stdin.write(chunk)) await new Promise((r) => p.stdin.once('drain', r));
  }
  p.stdin.end();
  assert.equal((await text(p.stdout)).trim(), String(8 << 20));
  assert.equal(await p.exited(), 0);
  assert.equal(api.execs.at(-1)!.stdinClosed, true);
  const echo = await driver.exec(ID, { command: ['cat'] });
  echo.stdin.end('piped\n');
  assert.deepEqual([await text(echo.stdout), await echo.exited()], ['piped\n', 0]);
});

test('stdout is read from the API server only as fast as its reader takes it (the WebSocket paused meanwhile), then whole', async () => {
  const size = 16 << 20;
  const p = await driver.exec(ID, { command: ['head', '-c', String(size), '/dev/zero'] });
  p.stdin.end();
  const ws = (p as unknown as { ws: { isPaused: boolean } }).ws;
  await until('the connection is paused while nobody reads stdout', () => ws.isPaused);
  assert.ok(p.stdout.readableLength < 4 << 20, `held ${p.stdout.readableLength} bytes unread`);
  let n = 0;
  p.stdout.on('data', (d: Buffer) => (n += d.length));
  await p.exited();
  assert.equal(n, size);
  assert.equal(await p.exited(), 0);
});

test('a server offering only v4.channel.k8s.io is spoken to in v4: output and exit code the same, no close frame sent', async () => {
  api.execProtocols = ['v4.channel.k8s.io'];
  try {
    const p = await driver.exec(ID, { command: ['/bin/sh', '-c', 'echo four; exit 5'] });
    assert.equal(p.protocol, 'v4.channel.k8s.io');
    p.stdin.end();
    assert.deepEqual([await text(p.stdout), await p.exited()], ['four\n', 5]);
    assert.deepEqual([api.execs.at(-1)!.protocol, api.execs.at(-1)!.stdinClosed], ['v4.channel.k8s.io', false]);
  } finally {
    api.execProtocols = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];
  }
});

test('a TTY: tty=true without stderr, the size sent at once and on resize (channel 4), stty set first; close() ends the process', async () => {
  const p = await driver.exec(ID, { command: ['/bin/sh', '-c', 'echo on-tty >&2; exec sleep 60'], tty: { cols: 100, rows: 30 } });
  const e = api.execs.at(-1)!;
  assert.equal(e.tty, true);
  assert.deepEqual(e.command.slice(0, 3), ['/bin/sh', '-c', 'stty rows 30 cols 100 2>/dev/null; exec "$@"']);
  let out = '';
  p.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await until('the process\'s stderr comes on the TTY\'s one stream', () => out === 'on-tty\n');
  await until('the first size reached the API server', () => e.resizes.length === 1);
  await p.resize({ cols: 132, rows: 43 });
  await until('the new size reached the API server', () => e.resizes.length === 2);
  assert.deepEqual(e.resizes, [{ Width: 100, Height: 30 }, { Width: 132, Height: 43 }]);
  const call = new URL(api.requests.findLast((r) => r.url.includes('/exec?'))!.url, 'http://x');
  assert.deepEqual([call.searchParams.get('tty'), call.searchParams.get('stderr')], ['true', 'false']);
  await p.close();
  await e.done;
  assert.equal(e.exitCode, 137, 'the stand-in process was killed when the connection closed');
  assert.equal(await p.exited(), null, 'no Status came: the connection was closed before the process ended');
});

test('terminal(): the shell on a TTY as one duplex stream; env entries through `env`', async () => {
  const t = await driver.terminal(ID, { cols: 80, rows: 24 });
  let out = '';
  t.stream.on('data', (d: Buffer) => (out += d.toString()));
  t.stream.write('echo "in the shell $((6 * 7))"\n');
  await until('the shell answered', () => out.includes('in the shell 42'));
  t.stream.write('exit\n');
  await t.close();
  assert.deepEqual(execArgv({ command: ['printenv', 'A'], env: ['A=1'] }), ['env', 'A=1', 'printenv', 'A']);
  const p = await driver.exec(ID, { command: ['/bin/sh', '-c', 'echo "$GANTRY_X"'], env: ['GANTRY_X=marked'] });
  assert.deepEqual([await text(p.stdout), await p.exited()], ['marked\n', 0]);
});

test('refused before the upgrade as the API server refuses: no pod (404), a pod not on a node or not running (400): TerminalUnavailable', async () => {
  await assert.rejects(driver.exec('ins_nopod', { command: ['true'] }), (err: Error) => err instanceof TerminalUnavailable && /pods "gi-ins-nopod" not found/.test(err.message));
  const pending = 'ins_pending';
  await driver.create(baseSpec(pending));
  await assert.rejects(driver.exec(pending, { command: ['true'] }), (err: Error) => err instanceof TerminalUnavailable && /does not have a host assigned/.test(err.message));
  api.setPodRunning(objectName(pending));
  api.setPodStatus(objectName(pending), { phase: 'Succeeded' });
  await assert.rejects(driver.exec(pending, { command: ['true'] }), (err: Error) => err instanceof TerminalUnavailable && /container not found/.test(err.message));
  assert.equal(api.execs.filter((e) => e.pod === objectName(pending)).length, 0, 'nothing ran');
});

test('an executable the runtime cannot start: its Failure Status said on stderr, no exit code', async () => {
  const p = await driver.exec(ID, { command: ['/nonexistent/tool'] });
  const [out, err] = await Promise.all([text(p.stdout), text(p.stderr)]);
  assert.equal(out, '');
  assert.match(err, /executable file not found/);
  assert.equal(await p.exited(), null);
  assert.equal(exitCodeOf({ status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '42' }] } }), 42);
  assert.equal(exitCodeOf({ status: 'Failure', reason: 'InternalError' }), null);
});

test('connect(): a TCP connection to a pod port through the portforward subresource (v4, the port prefixed on each channel\'s first frame); a port nothing listens on fails with the kubelet\'s message', async () => {
  const { createServer } = await import('node:net');
  const echo = createServer((s) => s.on('data', (d) => s.write(Buffer.concat([Buffer.from('echo:'), d]))));
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  const local = (echo.address() as { port: number }).port;
  const d = new KubernetesDriver(api.coreApi(), NS, api.kubeConfig());
  try {
    api.portTargets.set(8080, local);
    const s = await d.connect(ID, 8080);
    let got = '';
    s.on('data', (b: Buffer) => (got += b.toString()));
    s.write('ping');
    await until('the echo came back, without the port prefix', () => got === 'echo:ping');
    assert.deepEqual(api.forwards.at(-1), { pod: objectName(ID), port: 8080, protocol: 'v4.channel.k8s.io' });
    const call = new URL(api.requests.findLast((r) => r.url.includes('/portforward'))!.url, 'http://x');
    assert.deepEqual([call.pathname, call.searchParams.get('ports')], [`/api/v1/namespaces/${NS}/pods/${objectName(ID)}/portforward`, '8080']);
    s.destroy();
    // nothing listens there: the error channel's message, then the close
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    api.portTargets.set(9090, (closed.address() as { port: number }).port);
    await new Promise<void>((r) => closed.close(() => r()));
    const failed = await d.connect(ID, 9090);
    const err = await new Promise<Error>((resolve) => failed.once('error', resolve));
    assert.match(err.message, /error forwarding port 9090 to pod/);
    await assert.rejects(d.connect('ins_nopod', 8080), (e: Error) => e instanceof TerminalUnavailable && /not found/.test(e.message));
  } finally {
    await d.close();
    await new Promise<void>((r) => echo.close(() => r()));
  }
});

test('the driver\'s close() closes the execs still open', async () => {
  await driver.exec(ID, { command: ['sleep', '60'] });
  const e = api.execs.at(-1)!;
  await driver.close();
  await e.done;
  assert.equal(e.exitCode, 137);
});
