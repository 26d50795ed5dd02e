// The SSH endpoint on the kubernetes driver, end to end in the fast tier: ssh2's client → the
// endpoint (gateway/ssh) → KubernetesDriver.exec → the pod's `exec` subresource of the fake API
// server (drivers/kubernetes/fake-apiserver.ts: the real v5 channel WebSocket protocol, a local
// child process standing in for the container). The app is a sim-driver one (its instance
// runs in the store); the endpoint under test is given the kubernetes driver, whose pod for the
// instance the test creates and plays running; `ssh -L` through the portforward subresource to a
// local TCP server standing in for the pod's port. Not a real cluster.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import { fixture, type Fixture } from '../../../test/helpers/compute-fixture.ts';
import { until } from '../../../test/helpers/wait.ts';
import { baseSpec } from '../../drivers/contract.ts';
import { KubernetesDriver } from '../../drivers/kubernetes/driver.ts';
import { FakeApiServer } from '../../drivers/kubernetes/fake-apiserver.ts';
import { objectName } from '../../drivers/kubernetes/manifests.ts';
import { fingerprintOf, newEd25519Key } from './host-key.ts';
import { SshGateway } from './server.ts';

const api = new FakeApiServer();
let f: Fixture;
let gateway: SshGateway;
let driver: KubernetesDriver;
let id: string;
let key: string;
let port: number;
const dir = mkdtempSync(join(tmpdir(), 'gantry-kube-ssh-'));

before(async () => {
  await api.start();
  f = await fixture({ env: { GANTRY_SSH_LISTEN: '127.0.0.1:0' } });
  id = await f.create();
  await f.until(id, 'running');
  driver = new KubernetesDriver(api.coreApi(), 'gantry', api.kubeConfig());
  await driver.create(baseSpec(id));
  api.setPodRunning(objectName(id));
  const s = f.t.services;
  gateway = new SshGateway({ ...s, driver, sessions: s.liveSessions, throttle: s.authThrottle, config: { ...f.t.config.ssh, listen: { host: '127.0.0.1', port: 0 } } });
  port = (await gateway.listen())!.port;
  const pair = newEd25519Key('kube');
  assert.equal((await f.owner.post('/openapi/v1/user/ssh-keys', { publicKey: pair.public })).status, 200);
  key = pair.private;
});
after(async () => {
  await gateway?.close();
  await driver?.close();
  await f?.close();
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

function connect(): Promise<ssh2.Client> {
  return new Promise((resolve, reject) => {
    const c = new ssh2.Client();
    c.once('ready', () => resolve(c));
    c.once('error', reject);
    c.connect({ host: '127.0.0.1', port, username: id, privateKey: key, hostVerifier: (k: Buffer) => fingerprintOf(k) === gateway.hostKey!.fingerprint, readyTimeout: 10_000 });
  });
}

function exec(c: ssh2.Client, command: string, input?: string): Promise<{ code: number | undefined; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    c.exec(command, (err, stream) => {
      if (err) return reject(err);
      let stdout = '';
      let stderr = '';
      stream.on('data', (d: Buffer) => (stdout += d.toString()));
      stream.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      stream.on('close', (code: number | undefined) => resolve({ code, stdout, stderr }));
      if (input !== undefined) stream.end(input);
    });
  });
}

test('ssh into a kubernetes pod: a command\'s stdout, stderr and exit status 3; stdin piped to its EOF; a pty shell and its window change', async () => {
  const c = await connect();
  try {
    assert.deepEqual(await exec(c, 'echo out; echo err >&2; exit 3'), { code: 3, stdout: 'out\n', stderr: 'err\n' });
    const e = api.execs.at(-1)!;
    assert.deepEqual([e.pod, e.container, e.command, e.protocol], [objectName(id), 'main', ['/bin/sh', '-c', 'echo out; echo err >&2; exit 3'], 'v5.channel.k8s.io']);
    assert.deepEqual(await exec(c, 'wc -c', 'hello'), { code: 0, stdout: '5\n', stderr: '' });
    assert.equal(api.execs.at(-1)!.stdinClosed, true);

    const pty = await new Promise<ssh2.ClientChannel>((resolve, reject) => c.shell({ rows: 30, cols: 100, term: 'xterm' }, (err, ch) => (err ? reject(err) : resolve(ch))));
    const shell = api.execs.at(-1)!;
    let out = '';
    pty.on('data', (d: Buffer) => (out += d.toString()));
    pty.write('echo "in $((40 + 2))"\n');
    await until('the shell answers', () => out.includes('in 42'));
    assert.equal(shell.tty, true);
    await until('the pty size reached the API server', () => shell.resizes.length === 1);
    pty.setWindow(40, 120, 0, 0);
    await until('the window change reached the API server', () => shell.resizes.length === 2);
    assert.deepEqual(shell.resizes, [{ Width: 100, Height: 30 }, { Width: 120, Height: 40 }]);
    pty.write('exit\n');
    await shell.done;
  } finally {
    c.end();
  }
});

test('sftp through the kubernetes driver: a file put, listed and read back (SFTP\'s tools exec\'d through the pod\'s exec)', async () => {
  const c = await connect();
  try {
    const sftp = await new Promise<ssh2.SFTPWrapper>((resolve, reject) => c.sftp((err, s) => (err ? reject(err) : resolve(s))));
    const path = join(dir, 'note.txt');
    const body = 'through the exec subresource\n'.repeat(1000);
    await new Promise<void>((resolve, reject) => sftp.writeFile(path, body, (err) => (err ? reject(err) : resolve())));
    assert.equal(readFileSync(path, 'utf8'), body, 'the stand-in container has the file');
    const names = await new Promise<ssh2.FileEntry[]>((resolve, reject) => sftp.readdir(dir, (err, l) => (err ? reject(err) : resolve(l))));
    assert.deepEqual(names.map((n) => [n.filename, n.attrs.size]), [['note.txt', body.length]]);
    const back = await new Promise<Buffer>((resolve, reject) => sftp.readFile(path, (err, b) => (err ? reject(err) : resolve(b))));
    assert.equal(back.toString(), body);
  } finally {
    c.end();
  }
});

test('ssh -L through the kubernetes driver: a port of the pod reached through the portforward subresource', async () => {
  const echo = createServer((s) => s.on('data', (d) => s.write(Buffer.concat([Buffer.from('pod:'), d]))));
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  api.portTargets.set(8888, (echo.address() as { port: number }).port);
  const c = await connect();
  try {
    const ch = await new Promise<ssh2.ClientChannel>((resolve, reject) => c.forwardOut('127.0.0.1', 40000, 'localhost', 8888, (err, s) => (err ? reject(err) : resolve(s))));
    let got = '';
    ch.on('data', (d: Buffer) => (got += d.toString()));
    ch.write('hello');
    await until('the pod\'s port answered through -L', () => got === 'pod:hello');
    assert.deepEqual(api.forwards.at(-1), { pod: objectName(id), port: 8888, protocol: 'v4.channel.k8s.io' });
    ch.close();
  } finally {
    c.end();
    await new Promise<void>((r) => echo.close(() => r()));
  }
});
