// The SSH endpoint (issue 42), with the stock OpenSSH client against an instance on the docker
// driver: (a) a shell's readiness, `ssh -tt` started → the prompt on screen, and a command's
// round trip, `ssh host true`; (b) scp of a 100 MB file up and down through Gantry beside the
// engine's own `docker cp` of the same file on the same engine (issue target: scp ≥ 50 % of
// docker cp's speed); (c) /healthz latency while 20 sessions connect and stream output at once
// (target p99 < 50 ms).
//
// Everything is real: a dockerd of the bench's own (test/helpers/engines.ts: private socket,
// busybox-static test image, removed at the end), Gantry in this process on the docker driver
// with SSH on 127.0.0.1:0 (test/helpers/docker-instance.ts), ssh/scp as child processes.
// Needs root (the engine does) and openssh-client.
//
// Usage: node bench/ssh.ts [--runs 10] [--mb 100] [--sessions 20]
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEngine } from '../test/helpers/engines.ts';
import { dockerApp, runningInstance } from '../test/helpers/docker-instance.ts';
import { as } from '../test/helpers/http.ts';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1]! : dflt);
const runs = Number(opt('--runs', '10'));
const mb = Number(opt('--mb', '100'));
const sessions = Number(opt('--sessions', '20'));

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};
const f1 = (x: number) => x.toFixed(1);

function run(bin: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; ms: number; stderr: string }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    execFile(bin, args, { env, maxBuffer: 64 * 1024 * 1024 }, (err, _out, stderr) => {
      resolve({ code: err ? Number(err.code ?? 1) : 0, ms: performance.now() - t0, stderr });
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'gantry-bench-ssh-'));
const engine = await startEngine('dockerd');
const d = await dockerApp(engine, 'gantry-bench-ssh', { GANTRY_SSH_LISTEN: '127.0.0.1:0', GANTRY_SSH_SESSIONS_PER_INSTANCE: String(sessions + 8) });
try {
  const { app, team } = d;
  const { port } = (await app.services.ssh.listen())!;
  const id = await runningInstance(d, engine, 'bench-ssh');
  const key = join(dir, 'key');
  spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
  assert.equal((await as(app.app, team.owner.apiKey).post('/openapi/v1/user/ssh-keys', { publicKey: readFileSync(`${key}.pub`, 'utf8') })).status, 200);
  const knownHosts = join(dir, 'known_hosts');
  writeFileSync(knownHosts, `[127.0.0.1]:${port} ${app.services.ssh.hostKey!.publicKey}\n`);
  const opts = ['-F', '/dev/null', '-o', 'StrictHostKeyChecking=yes', '-o', `UserKnownHostsFile=${knownHosts}`, '-o', 'IdentitiesOnly=yes',
    '-o', 'BatchMode=yes', '-o', 'LogLevel=ERROR', '-i', key];
  const target = `${id}@127.0.0.1`;

  // (a) a shell's prompt, a command's round trip
  const ready: number[] = [];
  const trueMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const child = spawn('ssh', [...opts, '-p', String(port), '-tt', target], { stdio: ['pipe', 'pipe', 'ignore'] });
    await new Promise<void>((resolve) => {
      let screen = '';
      child.stdout.on('data', (c: Buffer) => {
        screen += c.toString();
        if (screen.includes('# ')) resolve();
      });
    });
    ready.push(performance.now() - t0);
    child.stdin.write('exit\r');
    await new Promise((r) => child.once('exit', r));
    trueMs.push((await run('ssh', [...opts, '-p', String(port), target, 'true'])).ms);
  }

  // (b) scp up and down vs docker cp (the engine's archive API through its own CLI), same file, same engine
  const file = join(dir, 'blob.bin');
  writeFileSync(file, randomBytes(mb * 1024 * 1024));
  const bytes = statSync(file).size;
  const docker = (args: string[]) => run('docker', ['-H', engine.host, ...args]);
  const best = async (f: () => Promise<{ code: number; ms: number; stderr: string }>) => {
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await f();
      assert.equal(r.code, 0, r.stderr);
      times.push(r.ms);
    }
    return Math.min(...times);
  };
  const scpUp = await best(() => run('scp', [...opts, '-P', String(port), file, `${target}:/tmp/up.bin`]));
  const scpDown = await best(() => run('scp', [...opts, '-P', String(port), `${target}:/tmp/up.bin`, join(dir, 'down.bin')]));
  assert.ok(readFileSync(join(dir, 'down.bin')).equals(readFileSync(file)));
  // the transport alone: the file through a plain channel into `cat` (no SFTP)
  const pipeUp = await best(() => run('sh', ['-c', `ssh ${opts.join(' ')} -p ${port} ${target} 'cat > /tmp/pipe.bin' < ${file}`]));
  const cpUp = await best(() => docker(['cp', file, `${id}:/tmp/cp.bin`]));
  const cpDown = await best(() => docker(['cp', `${id}:/tmp/cp.bin`, join(dir, 'cp-down.bin')]));
  const mbps = (ms: number) => bytes / 1024 / 1024 / (ms / 1000);

  // (c) /healthz while `sessions` sessions connect and each prints 20 lines a second for 5 s
  const healthz: number[] = [];
  let loading = true;
  const poll = (async () => {
    while (loading) {
      const t0 = performance.now();
      await (await fetch(`${d.base}/healthz`)).text();
      healthz.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const load = Array.from({ length: sessions }, () => run('ssh', [...opts, '-p', String(port), target, 'i=0; while [ $i -lt 100 ]; do echo "line $i $(date)"; sleep 0.05; i=$((i+1)); done']));
  const results = await Promise.all(load);
  loading = false;
  await poll;
  assert.ok(results.every((r) => r.code === 0), results.map((r) => r.stderr).join('\n'));

  const lines = [
    `SSH bench (${new Date().toISOString().slice(0, 16)}Z, dockerd, ${runs} runs, ${mb} MB, ${sessions} sessions)`,
    '',
    '| measure | p50 | p90 | max |',
    '|---|---|---|---|',
    `| \`ssh -tt\` spawned → shell prompt (ms) | ${f1(pct(ready, 50))} | ${f1(pct(ready, 90))} | ${f1(Math.max(...ready))} |`,
    `| \`ssh host true\` round trip (ms) | ${f1(pct(trueMs, 50))} | ${f1(pct(trueMs, 90))} | ${f1(Math.max(...trueMs))} |`,
    '',
    '| copy of the file (best of 3) | through Gantry (scp) | docker cp | scp / docker cp |',
    '|---|---|---|---|',
    `| up | ${f1(scpUp)} ms, ${f1(mbps(scpUp))} MB/s | ${f1(cpUp)} ms, ${f1(mbps(cpUp))} MB/s | ${Math.round((100 * cpUp) / scpUp)} % |`,
    `| up, \`ssh host 'cat > f' < file\` (no SFTP) | ${f1(pipeUp)} ms, ${f1(mbps(pipeUp))} MB/s | | ${Math.round((100 * cpUp) / pipeUp)} % |`,
    `| down | ${f1(scpDown)} ms, ${f1(mbps(scpDown))} MB/s | ${f1(cpDown)} ms, ${f1(mbps(cpDown))} MB/s | ${Math.round((100 * cpDown) / scpDown)} % |`,
    '',
    `/healthz during ${sessions} sessions streaming output: ${healthz.length} requests, p50 ${f1(pct(healthz, 50))} ms, p99 ${f1(pct(healthz, 99))} ms, max ${f1(Math.max(...healthz))} ms`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await d.app.close();
  await engine.stop();
  rmSync(dir, { recursive: true, force: true });
}
