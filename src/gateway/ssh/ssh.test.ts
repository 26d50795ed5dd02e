// The SSH endpoint's rules that need no container (gateway/ssh), with ssh2's own client against
// the endpoint on 127.0.0.1:0 over a sim-driver instance (the sim has no exec: a session that
// authenticates is told so on stderr): the host key kept sealed and the same after a restart;
// the view's command; failed authentications counted by the auth throttle until the address is
// locked out, a registered key included; the per-instance cap; a suspended team's connection
// closed; the settings; the SFTP listing parser. The stock OpenSSH client against a real
// container: ssh.engines.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import ssh2 from 'ssh2';
import { loadConfig } from '../../config.ts';
import { fixture, type Fixture } from '../../../test/helpers/compute-fixture.ts';
import { as } from '../../../test/helpers/http.ts';
import { until } from '../../../test/helpers/wait.ts';
import { getSetting } from '../../store/settings.ts';
import { sshCommand } from './access.ts';
import { fingerprintOf, loadHostKey, newEd25519Key } from './host-key.ts';
import { longName, parseStats } from './sftp.ts';
import { SshGateway } from './server.ts';

interface Ran {
  code: number | undefined;
  stderr: string;
}

/** A connection of ssh2's client that checks the host key by its fingerprint; rejects when authentication fails. */
function connect(port: number, username: string, privateKey: string, hostKey: string): Promise<ssh2.Client> {
  return new Promise((resolve, reject) => {
    const c = new ssh2.Client();
    c.once('ready', () => resolve(c));
    c.once('error', reject);
    c.connect({ host: '127.0.0.1', port, username, privateKey, hostVerifier: (key: Buffer) => fingerprintOf(key) === hostKey, readyTimeout: 10_000 });
  });
}

function exec(c: ssh2.Client, command: string): Promise<Ran> {
  return new Promise((resolve, reject) => {
    c.exec(command, (err, stream) => {
      if (err) return reject(err);
      let stderr = '';
      stream.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      stream.on('data', () => {});
      stream.on('close', (code: number | undefined) => resolve({ code, stderr }));
    });
  });
}

/** One app for every test (a file of the fast tier stays quick): throttle at 3 failures, one session per instance. */
let s: { f: Fixture; id: string; port: number; fingerprint: string; key: string };
before(async () => {
  s = await setup({ GANTRY_AUTH_FAILURES_PER_ADDRESS: '3', GANTRY_SSH_SESSIONS_PER_INSTANCE: '1' });
});
after(() => s?.f.close());

async function setup(env: Record<string, string>): Promise<{ f: Fixture; id: string; port: number; fingerprint: string; key: string }> {
  const f = await fixture({ env: { GANTRY_SSH_LISTEN: '127.0.0.1:0', ...env } });
  const at = await f.t.services.ssh.listen();
  assert.ok(at);
  const id = await f.create();
  await f.until(id, 'running');
  const pair = newEd25519Key('fast');
  assert.equal((await f.owner.post('/openapi/v1/user/ssh-keys', { publicKey: pair.public })).status, 200);
  return { f, id, port: at.port, fingerprint: f.t.services.ssh.hostKey!.fingerprint, key: pair.private };
}

test('the host key is made once, kept sealed, and the same after a restart; the view gives it, and no command on a driver without SSH', async () => {
  const { f, id, fingerprint } = s;
  const stored = await getSetting<{ sealed: string }>(f.t.store.db, 'ssh.hostKey');
  assert.ok(stored?.sealed);
  assert.doesNotMatch(JSON.stringify(stored), /PRIVATE KEY|openssh-key-v1/);
  assert.equal((await loadHostKey(f.t.services.ctx, f.t.services.secrets)).fingerprint, fingerprint);
  const restarted = new SshGateway({ ...f.t.services, driver: f.t.services.compute.driver, sessions: f.t.services.liveSessions, throttle: f.t.services.authThrottle, config: { ...f.t.config.ssh, listen: { host: '127.0.0.1', port: 0 } } });
  await restarted.listen();
  assert.equal(restarted.hostKey?.fingerprint, fingerprint);
  await restarted.close();
  const view = (await f.get(id)).connectComponentSSH;
  assert.deepEqual({ ...view, hostPublicKey: '' }, { sshCommand: '', password: '', isRunning: false, hostKeyFingerprint: fingerprint, hostPublicKey: '' });
  assert.match(view.hostPublicKey, /^ssh-ed25519 AAAA/);
});

test('failed authentications are counted by the auth throttle: past the limit the address is refused, a registered key too', async () => {
  const { f, id, port, fingerprint, key } = s;
  // a registered key gets in (and is told the sim driver has no SSH)
  const c = await connect(port, id, key, fingerprint);
  assert.deepEqual(await exec(c, 'true'), { code: 1, stderr: 'this Gantry\'s compute driver has no SSH\r\n' });
  c.end();
  // an unknown key, three times: each is a failure of the address
  const stranger = newEd25519Key().private;
  for (let i = 0; i < 3; i++) await assert.rejects(connect(port, id, stranger, fingerprint), /authentication methods failed/);
  // locked out: the registered key is refused before it is checked
  await assert.rejects(connect(port, id, key, fingerprint), /authentication methods failed/);
  f.t.clock.advance(f.t.config.authThrottle.windowMs + 1);
  (await connect(port, id, key, fingerprint)).end();
});

test('an open connection is closed once its SSH key is removed (sshkey.changed), and the key gets no other', async () => {
  const { f, id, port, fingerprint } = s;
  await until('the connections before are gone', () => f.t.services.liveSessions.count(`ssh:instance:${id}`) === 0);
  const pair = newEd25519Key('removed');
  const added = await f.owner.post('/openapi/v1/user/ssh-keys', { publicKey: pair.public });
  const c = await connect(port, id, pair.private, fingerprint);
  let closed = false;
  c.once('close', () => (closed = true));
  assert.equal((await f.owner.delete(`/openapi/v1/user/ssh-keys/${added.body.sshKeyId}`)).status, 200);
  await until('the connection is closed', () => closed, { limitMs: 5_000 });
  await assert.rejects(connect(port, id, pair.private, fingerprint), /authentication methods failed/);
});

test('sessions per instance are capped (told on stderr); a suspended team\'s open connection is closed', async () => {
  const { f, id, port, fingerprint, key } = s;
  await until('the connections before are gone', () => f.t.services.liveSessions.count(`ssh:instance:${id}`) === 0);
  const first = await connect(port, id, key, fingerprint);
  const second = await connect(port, id, key, fingerprint);
  const refused = await exec(second, 'true');
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, new RegExp(`instance ${id} has 1 SSH sessions open, the most it may have at once`));
  second.end();
  let closed = false;
  first.once('close', () => (closed = true));
  assert.equal((await as(f.t.app, f.t.creds.adminToken).post(`/admin/v1/teams/${f.team.userId}/suspend`, {})).status, 200);
  await until('the suspended team\'s connection is closed', () => closed, { limitMs: 5_000 });
  await until('its place is free', () => f.t.services.liveSessions.count(`ssh:instance:${id}`) === 0);
  await assert.rejects(connect(port, id, key, fingerprint), /authentication methods failed/);
});

test('settings: off unless GANTRY_SSH_LISTEN is set; the public address from GANTRY_PUBLIC_URL; malformed values name the variable', () => {
  assert.equal(loadConfig({}).ssh.listen, undefined);
  const on = loadConfig({ GANTRY_SSH_LISTEN: '0.0.0.0:2222', GANTRY_PUBLIC_URL: 'https://gpu.example.com' }).ssh;
  assert.deepEqual([on.listen, on.publicHost, on.publicPort], [{ host: '0.0.0.0', port: 2222 }, 'gpu.example.com', undefined]);
  const v6 = loadConfig({ GANTRY_SSH_LISTEN: '[::]:22', GANTRY_SSH_PUBLIC: 'ssh.example.com:443' }).ssh;
  assert.deepEqual([v6.listen, v6.publicHost, v6.publicPort], [{ host: '::', port: 22 }, 'ssh.example.com', 443]);
  assert.throws(() => loadConfig({ GANTRY_SSH_LISTEN: '2222' }), /GANTRY_SSH_LISTEN must be host:port/);
  assert.throws(() => loadConfig({ GANTRY_SSH_PUBLIC: 'a:99999' }), /GANTRY_SSH_PUBLIC must be host:port or a host/);
  assert.equal(sshCommand('ins_1', 'gpu.example.com', 2222), 'ssh -p 2222 ins_1@gpu.example.com');
});

test('a new ed25519 key always reads back (ssh2\'s generator alone fails about 1 in 200)', () => {
  for (let i = 0; i < 1000; i++) {
    const k = newEd25519Key();
    assert.ok(!(ssh2.utils.parseKey(k.private) instanceof Error) && !(ssh2.utils.parseKey(k.public) instanceof Error));
  }
});

test('SFTP names from `stat -c`: modes, sizes, names with spaces, an ls -l line', () => {
  const [dir, file] = parseStats('41ed 4096 0 0 1700000000 1700000000 /tmp/box\n81a4 7 1000 100 1700000001 1700000002 /tmp/box/a note.txt\nnoise\n');
  assert.deepEqual(dir?.attrs, { mode: 0o40755, size: 4096, uid: 0, gid: 0, atime: 1700000000, mtime: 1700000000 });
  assert.equal(file?.filename, 'a note.txt');
  assert.match(file!.longname, /^-rw-r--r-- +1 1000 +100 +7 2023-11-14 22:13 a note\.txt$/);
  assert.match(longName('box', dir!.attrs), /^drwxr-xr-x /);
});
