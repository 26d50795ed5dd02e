// The SSH endpoint (issue 42) with the stock OpenSSH client against an instance on the docker
// driver, on a dockerd of the test's own (test/helpers/engines.ts; Podman too, below), one app
// and one container for every check: a command's output, stderr and exit status; a shell on a
// pty (its size, and a window change through ssh2's client); scp both ways (the same bytes);
// sftp batch mkdir/put/ls/get/rename/rm; `ssh -L` to a busybox httpd in the container (a port
// not published); agent forwarding, X11 and -R refused while the session goes on. Refused:
// another team's key (on our instance and on a made-up one alike); a member demoted to Basic
// (their open session closed within seconds, then the key refused); a removed key (likewise);
// a stopped instance (its open session ended with the container, then refused saying why).
// The client checks the host key against the one the API publishes (StrictHostKeyChecking=yes).
// Skipped with the reason where the engine or the OpenSSH client is missing, never under
// GANTRY_TEST_REQUIRE_ENGINES=1 (CI installs both).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import type { TestApp } from '../../../test/helpers/app.ts';
import { type EngineKind, engineSkip, startEngine } from '../../../test/helpers/engines.ts';
import { createTeam } from '../../../test/helpers/factories.ts';
import { as } from '../../../test/helpers/http.ts';
import { until } from '../../../test/helpers/wait.ts';
import { dockerApp, GPU_BASE, runningInstance } from '../../../test/helpers/docker-instance.ts';

const CLIENT = ['ssh', 'scp', 'sftp', 'ssh-keygen', 'ssh-agent'];

function clientSkip(): string | false {
  if (process.env.GANTRY_TEST_REQUIRE_ENGINES === '1') return false;
  const missing = CLIENT.filter((b) => spawnSync('sh', ['-c', `command -v ${b}`]).status !== 0);
  return missing.length ? `the OpenSSH client is missing (${missing.join(', ')}): apt-get install openssh-client` : false;
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end (asynchronously: the SSH server answers in this process). */
function run(bin: string, args: string[], o: { input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Ran> {
  return new Promise((resolve) => {
    const child = execFile(bin, args, { timeout: o.timeoutMs ?? 30_000, env: o.env ?? process.env, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
    });
    child.stdin?.end(o.input ?? '');
  });
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as { port: number };
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

// dockerd only in the tier: CI's 20 minutes are nearly spent (DEVELOPERS.md); the same checks
// pass on Podman (add 'podman' here to run them: ~25 s more)
for (const kind of ['dockerd'] as const satisfies EngineKind[]) test(`SSH (${kind}): commands, a pty shell, scp, sftp, -L; agent, X11 and -R refused; every refusal; a removed key closes its session`, {
  skip: engineSkip(kind) || clientSkip(), timeout: 300_000,
}, async (t) => {
  const began = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'gantry-ssh-'));
  const engine = await startEngine(kind);
  let h: TestApp | undefined;
  const children: ChildProcess[] = [];
  t.after(async () => {
    for (const c of children) c.kill('SIGKILL');
    await h?.close();
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const d = await dockerApp(engine, 'gantry-ssh', { GANTRY_SSH_LISTEN: '127.0.0.1:0' });
  h = d.app;
  const { app, team } = d;
  const listening = await app.services.ssh.listen();
  assert.ok(listening);
  const port = listening.port;
  const id = await runningInstance(d, engine, 'ssh');
  const owner = as(app.app, team.owner.apiKey);

  // a key of the stock client, registered through the API
  const keyOf = async (name: string, apiKey: string) => {
    const file = join(dir, name);
    assert.equal(spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', file]).status, 0);
    const added = await as(app.app, apiKey).post('/openapi/v1/user/ssh-keys', { publicKey: readFileSync(`${file}.pub`, 'utf8') });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    return { file, sshKeyId: added.body.sshKeyId as string };
  };
  const mine = await keyOf('owner', team.owner.apiKey);

  // what the instance says: the exact command, the host key
  const view = async () => (await owner.get(`${GPU_BASE}/gpu/instance`, { instanceId: id })).body.connectComponentSSH;
  const ssh = await view();
  assert.equal(ssh.sshCommand, `ssh -p ${port} ${id}@127.0.0.1`);
  assert.equal(ssh.isRunning, true);
  assert.equal(ssh.password, '');
  assert.match(ssh.hostKeyFingerprint, /^SHA256:[A-Za-z0-9+/]{43}$/);
  assert.match(ssh.hostPublicKey, /^ssh-ed25519 AAAA/);
  const basic = await as(app.app, team.members.Basic.apiKey).get(`${GPU_BASE}/gpu/instance`, { instanceId: id });
  assert.equal(basic.body.connectComponentSSH.sshCommand, '', 'no command for a role that may not operate the instance');
  const knownHosts = join(dir, 'known_hosts');
  writeFileSync(knownHosts, `[127.0.0.1]:${port} ${ssh.hostPublicKey}\n`);
  // the fingerprint published is the key's own (what ssh-keygen prints of it)
  const printed = spawnSync('ssh-keygen', ['-l', '-f', knownHosts], { encoding: 'utf8' }).stdout;
  assert.ok(printed.includes(ssh.hostKeyFingerprint), printed);

  const opts = (key: string) => ['-F', '/dev/null', '-o', 'StrictHostKeyChecking=yes', '-o', `UserKnownHostsFile=${knownHosts}`,
    '-o', 'IdentitiesOnly=yes', '-o', 'BatchMode=yes', '-o', 'LogLevel=ERROR', '-i', key];
  const sshTo = (key: string, args: string[], o: Parameters<typeof run>[2] = {}) => run('ssh', [...opts(key), '-p', String(port), ...args], o);
  const target = `${id}@127.0.0.1`;

  // a command: its output, its stderr, its exit status
  const cmd = await sshTo(mine.file, [target, 'echo out-$((6*7)); echo err-$((40+2)) >&2; exit 3']);
  assert.deepEqual([cmd.code, cmd.stdout, cmd.stderr], [3, 'out-42\n', 'err-42\n']);
  assert.equal((await sshTo(mine.file, [target, 'true'])).code, 0);
  // stdin reaches the command, and its end is the command's EOF
  assert.equal((await sshTo(mine.file, [target, 'wc -c'], { input: 'twelve bytes' })).stdout.trim(), '12');

  // a shell on a pty (-tt: the client has no terminal of its own); a command on one sees a TTY
  // (typed once the prompt shows, as a user does: busybox's line editor reads a cursor report first)
  const interactive = spawn('ssh', [...opts(mine.file), '-p', String(port), '-tt', target], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(interactive);
  let screen = '';
  interactive.stdout.on('data', (c: Buffer) => (screen += c.toString()));
  const shellExit = new Promise<number | null>((r) => interactive.once('exit', (code) => r(code)));
  await until('the shell prompts', () => screen.includes('# '), { limitMs: 15_000 });
  interactive.stdin.write('echo shell-$((40+2)); [ -t 0 ] && echo on-a-$((0))tty; exit 5\r');
  assert.equal(await shellExit, 5);
  assert.match(screen, /shell-42/);
  assert.match(screen, /on-a-0tty/);
  const size = await sshTo(mine.file, ['-tt', target, 'stty size']);
  // the client has no terminal to take a size from (it asks 0x0): the pty is 80x24
  assert.equal(size.stdout, '24 80\r\n');
  // the size a client asks for, then a window change (ssh2's client: OpenSSH sends one on SIGWINCH of a terminal it has)
  const client = await new Promise<ssh2.Client>((resolve, reject) => {
    const c = new ssh2.Client();
    c.once('ready', () => resolve(c)).once('error', reject);
    c.connect({ host: '127.0.0.1', port, username: id, privateKey: readFileSync(mine.file), hostVerifier: (k: Buffer) => `ssh-ed25519 ${k.toString('base64')}` === ssh.hostPublicKey });
  });
  const pty = await new Promise<ssh2.ClientChannel>((resolve, reject) => client.shell({ rows: 30, cols: 100, term: 'xterm' }, (err, ch) => (err ? reject(err) : resolve(ch))));
  let tty = '';
  pty.on('data', (c: Buffer) => (tty += c.toString()));
  await until('the shell prompts', () => tty.includes('# '), { limitMs: 15_000 });
  pty.write('echo size-$(stty size | tr " " x)\r');
  await until('stty size says 30x100', () => tty.includes('size-30x100'), { limitMs: 15_000 });
  pty.setWindow(40, 120, 0, 0);
  await until('stty size says the new size', () => {
    if (tty.includes('size-40x120')) return true;
    pty.write('echo size-$(stty size | tr " " x)\r');
    return false;
  }, { limitMs: 15_000, everyMs: 200 });
  client.end();

  // scp (SFTP underneath) up and back: the same bytes
  const blob = randomBytes(3 * 1024 * 1024 + 17);
  writeFileSync(join(dir, 'up.bin'), blob);
  const scp = (args: string[]) => run('scp', [...opts(mine.file), '-P', String(port), ...args]);
  const up = await scp([join(dir, 'up.bin'), `${target}:/tmp/up.bin`]);
  assert.equal(up.code, 0, up.stderr);
  assert.equal((await sshTo(mine.file, [target, 'wc -c < /tmp/up.bin'])).stdout.trim(), String(blob.length));
  const down = await scp([`${target}:/tmp/up.bin`, join(dir, 'down.bin')]);
  assert.equal(down.code, 0, down.stderr);
  assert.ok(readFileSync(join(dir, 'down.bin')).equals(blob), 'the bytes downloaded are those uploaded');

  // sftp in batch: mkdir, put, ls, get, rename, rm
  writeFileSync(join(dir, 'note.txt'), 'a note\n');
  writeFileSync(join(dir, 'batch'), [
    'mkdir /tmp/box', `put ${join(dir, 'note.txt')} /tmp/box/note.txt`, 'ls -l /tmp/box', `get /tmp/box/note.txt ${join(dir, 'back.txt')}`,
    'rename /tmp/box/note.txt /tmp/box/renamed.txt', 'ls /tmp/box', 'rm /tmp/box/renamed.txt', 'rmdir /tmp/box', '',
  ].join('\n'));
  const sftp = await run('sftp', [...opts(mine.file), '-P', String(port), '-b', join(dir, 'batch'), target]);
  assert.equal(sftp.code, 0, sftp.stderr + sftp.stdout);
  assert.match(sftp.stdout, /-rw.* 7 .*note\.txt/);
  assert.match(sftp.stdout, /renamed\.txt/);
  assert.equal(readFileSync(join(dir, 'back.txt'), 'utf8'), 'a note\n');
  assert.equal((await sshTo(mine.file, [target, '[ -e /tmp/box ] || echo gone'])).stdout, 'gone\n');
  // a missing file is the client's "No such file"
  const missing = await scp([`${target}:/tmp/nothing-here`, join(dir, 'never')]);
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /No such file/i);

  // ssh -L to a port of the container (not published): busybox httpd serves /www
  assert.equal((await sshTo(mine.file, [target, 'httpd -p 8080 -h /www'])).code, 0);
  const local = await freePort();
  const forward = spawn('ssh', [...opts(mine.file), '-p', String(port), '-N', '-o', 'ExitOnForwardFailure=yes', '-L', `127.0.0.1:${local}:localhost:8080`, target], { stdio: 'ignore' });
  children.push(forward);
  let page = '';
  await until('the page answers through the forward', async () => {
    page = await fetch(`http://127.0.0.1:${local}/`).then((r) => r.text(), () => '');
    return page.includes('gantry-test-page');
  }, { limitMs: 20_000, everyMs: 200 });
  forward.kill();

  // agent forwarding (-A with an agent), X11 (-X with a display) and -R: refused, the session goes on
  const agentSock = join(dir, 'agent.sock');
  const agent = spawn('ssh-agent', ['-D', '-a', agentSock], { stdio: 'ignore' });
  children.push(agent);
  await until('the agent listens', () => spawnSync('ssh-add', ['-l'], { env: { ...process.env, SSH_AUTH_SOCK: agentSock } }).status !== 2, { limitMs: 10_000 });
  const forwarded = await sshTo(mine.file, ['-A', '-X', '-R', '127.0.0.1:0:127.0.0.1:9', target, 'echo "agent=[$SSH_AUTH_SOCK] display=[$DISPLAY]"'],
    { env: { ...process.env, SSH_AUTH_SOCK: agentSock, DISPLAY: ':99' } });
  assert.equal(forwarded.code, 0, forwarded.stderr);
  assert.equal(forwarded.stdout, 'agent=[] display=[]\n');
  assert.match(forwarded.stderr, /X11 forwarding request failed/);
  // the -R refusal, made fatal: the client says the server refused it
  const strict = await sshTo(mine.file, ['-o', 'ExitOnForwardFailure=yes', '-R', '127.0.0.1:0:127.0.0.1:9', target, 'echo never']);
  assert.equal(strict.code, 255);
  assert.match(strict.stderr, /remote port forwarding failed/i);
  assert.equal(strict.stdout, '');
  agent.kill();

  // refused: another team's key, on this instance and on one that does not exist, alike
  const other = await createTeam(app.app, app.creds.adminToken);
  const theirs = await keyOf('theirs', other.owner.apiKey);
  const onOurs = await sshTo(theirs.file, [target, 'true']);
  const onNone = await sshTo(theirs.file, ['ins_doesnotexist@127.0.0.1', 'true']);
  assert.deepEqual([onOurs.code, onNone.code], [255, 255]);
  assert.match(onOurs.stderr, /Permission denied \(publickey\)/);
  assert.equal(onOurs.stderr.replace(id, 'X'), onNone.stderr.replace('ins_doesnotexist', 'X'), 'another team\'s instance answers as a missing one');

  // a member's open session closes when the member is demoted to Basic; then the key is refused
  const sessions = app.services.liveSessions;
  const subject = `ssh:instance:${id}`;
  const developer = await keyOf('developer', team.members.Developer.apiKey);
  const closedWithin = async (key: string, withdraw: () => Promise<void>) => {
    await until('no session is open', () => sessions.count(subject) === 0, { limitMs: 15_000 });
    const child = spawn('ssh', [...opts(key), '-p', String(port), target, 'echo started; sleep 600'], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    const closed = { code: null as number | null, stdout: '', stderr: '' };
    child.stdout.on('data', (c: Buffer) => (closed.stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (closed.stderr += c.toString()));
    const exited = new Promise<void>((r) => child.once('exit', (code) => {
      closed.code = code;
      r();
    }));
    await until('the session runs its command', () => closed.stdout === 'started\n' && sessions.count(subject) === 1, { limitMs: 15_000 });
    const at = performance.now();
    await withdraw();
    await exited;
    const ms = performance.now() - at;
    assert.ok(ms < 5_000, `closed in ${ms} ms`);
    assert.equal(closed.code, 255);
    assert.match(closed.stderr, /Gantry closed this session/);
    await until('its place is free', () => sessions.count(subject) === 0, { limitMs: 5_000 });
    return ms;
  };
  const demoteMs = await closedWithin(developer.file, async () => {
    assert.equal((await owner.post(`/openapi/v1/user/team/members/${team.members.Developer.memberId}/role`, { role: 'Basic' })).status, 200);
  });
  const denied = await sshTo(developer.file, [target, 'true']);
  assert.equal(denied.code, 255);
  assert.match(denied.stderr, /Permission denied \(publickey\)/, 'a Basic member\'s key is refused');

  // an open session is closed within seconds of its key's removal; the key opens none after
  const removeMs = await closedWithin(mine.file, async () => {
    assert.equal((await owner.delete(`/openapi/v1/user/ssh-keys/${mine.sshKeyId}`)).status, 200);
  });
  assert.match((await sshTo(mine.file, [target, 'true'])).stderr, /Permission denied/, 'the removed key no longer opens one');

  // the instance stopping ends its open sessions; a stopped one has no command in its view, and a session is refused saying why
  const again = await keyOf('admin', team.members.Admin.apiKey);
  const running = spawn('ssh', [...opts(again.file), '-p', String(port), target, 'echo started; sleep 600'], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(running);
  let said = '';
  running.stdout.on('data', (c: Buffer) => (said += c.toString()));
  const ends = new Promise<number | null>((r) => running.once('exit', (code) => r(code)));
  await until('the session runs', () => said === 'started\n', { limitMs: 15_000 });
  assert.equal((await owner.post(`${GPU_BASE}/gpu/instance/stop`, { instanceId: id })).status, 200);
  await until(`${id} exits`, async () => {
    app.clock.advance(200);
    await app.services.compute.reconcile();
    return (await owner.get(`${GPU_BASE}/gpu/instance`, { instanceId: id })).body.status === 'exited';
  }, { limitMs: 60_000, everyMs: 100 });
  assert.notEqual(await ends, 0, 'the session ended with its container');
  await until('its place is free', () => sessions.count(subject) === 0, { limitMs: 5_000 });
  assert.deepEqual({ ...(await view()), hostKeyFingerprint: '', hostPublicKey: '' }, { sshCommand: '', password: '', isRunning: false, hostKeyFingerprint: '', hostPublicKey: '' });
  const stopped = await sshTo(again.file, [target, 'true']);
  assert.equal(stopped.code, 1);
  assert.match(stopped.stderr, /is exited: SSH reaches a running instance/);
  t.diagnostic(`ssh checks: ${Math.round(performance.now() - began)} ms; sessions closed ${Math.round(demoteMs)} ms after a demotion, ${Math.round(removeMs)} ms after a key's removal`);
});
