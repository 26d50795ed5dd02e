// Container engines of a test's own: dockerd or `podman system service` on a private socket,
// with every byte of state (images, containers, volumes, networks) in a temp dir, and a test
// image built here without a registry (busybox-static into a rootfs, imported through the
// engine's API). Stopped and removed by `stop()`; if the test process dies first (kill -9
// included), a watchdog that polls its pid does the same, so no daemon outlives its test.
//
// What the sandbox needs (issue 31): Podman a containers.conf with default_ulimits the
// process may set, runc and cgroupfs; dockerd --iptables=false --bridge=none (no default
// network, the driver makes its own) on overlay2.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, copyFileSync, writeFileSync, chmodSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type EngineKind = 'dockerd' | 'podman';

export interface TestEngine {
  kind: EngineKind;
  /** GANTRY_DOCKER_HOST for it: unix://<dir>/<engine>.sock */
  host: string;
  socketPath: string;
  dir: string;
  /** an image the engine has (busybox, with /www/index.html), no pull needed */
  image: string;
  /** a call to the engine's API (tests look at what the driver made) */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
  stop(): Promise<void>;
}

export interface EngineOptions {
  /**
   * dockerd with its firewall (`--iptables=true --ip-forward=true`, as production runs it:
   * the rules that keep bridge networks apart), in a network namespace of its own. Only there:
   * dockerd flushes the DOCKER chains at start (libnetwork's removeIPChains), so two on the
   * host's tables would erase each other's rules; the cost is that the host cannot reach its
   * containers or published ports, so only tests that look from container to container ask for
   * it. Podman needs no such option: netavark adds its rules beside others' and isolates the
   * networks the driver makes (`isolate`) on the host's tables.
   */
  firewall?: boolean;
}

const BINARIES: Record<EngineKind, string[]> = { dockerd: ['dockerd', 'docker-proxy', 'runc'], podman: ['podman', 'conmon', 'runc'] };
const BUSYBOX = ['/bin/busybox', '/usr/bin/busybox'];
export const TEST_IMAGE = 'localhost/gantry-test/busybox:latest';

function which(bin: string): string | undefined {
  for (const d of (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/usr/bin', '/sbin', '/bin'])) {
    if (d && existsSync(join(d, bin))) return join(d, bin);
  }
  return undefined;
}

function staticBusybox(): string | undefined {
  return BUSYBOX.find((p) => {
    if (!existsSync(p)) return false;
    const ldd = spawnSync('ldd', [p], { encoding: 'utf8' });
    return /not a dynamic executable|statically linked/.test(`${ldd.stdout}${ldd.stderr}`);
  });
}

/**
 * Why a test of `kind` cannot run here, or false. Never a reason under
 * GANTRY_TEST_REQUIRE_ENGINES=1 (CI): there a missing engine fails the test instead.
 */
export function engineSkip(kind: EngineKind): string | false {
  if (process.env.GANTRY_TEST_REQUIRE_ENGINES === '1') return false;
  const missing = BINARIES[kind].filter((b) => !which(b));
  if (missing.length) return `${missing.join(', ')} not installed (apt-get install ${kind === 'dockerd' ? 'docker.io' : 'podman'} runc busybox-static)`;
  if (!staticBusybox()) return 'no static busybox for the test image (apt-get install busybox-static)';
  if (process.getuid?.() !== 0) return `${kind} of the test's own needs root`;
  return false;
}

function call(socketPath: string, method: string, path: string, body?: unknown, raw?: NodeJS.ReadableStream): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (raw) headers['content-type'] = 'application/x-tar';
    const req = request({ socketPath, method, path: `/v1.41${path}`, headers, timeout: 30_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        let json: any = text;
        try {
          json = text.trim() ? JSON.parse(text) : undefined;
        } catch {
          // a stream of JSON lines, or text: kept as it is
        }
        resolve({ status: res.statusCode ?? 0, json });
      });
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in 30 s`)));
    if (raw) raw.pipe(req);
    else req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** A rootfs of busybox (applets as relative links) and a page for httpd (the test image; helpers/registry.ts serves it too). */
export function buildRootfs(dir: string): void {
  const busybox = staticBusybox();
  if (!busybox) throw new Error('no static busybox (apt-get install busybox-static)');
  for (const d of ['bin', 'tmp', 'etc', 'proc', 'sys', 'dev', 'www', 'data']) mkdirSync(join(dir, d), { recursive: true });
  chmodSync(join(dir, 'tmp'), 0o1777);
  copyFileSync(busybox, join(dir, 'bin/busybox'));
  chmodSync(join(dir, 'bin/busybox'), 0o755);
  const applets = spawnSync(busybox, ['--list'], { encoding: 'utf8' }).stdout.split('\n').filter((a) => a && a !== 'busybox');
  for (const a of applets) symlinkSync('busybox', join(dir, 'bin', a));
  writeFileSync(join(dir, 'www/index.html'), 'gantry-test-page\n');
  writeFileSync(join(dir, 'etc/passwd'), 'root:x:0:0:root:/:/bin/sh\n');
  writeFileSync(join(dir, 'etc/group'), 'root:x:0:\n');
}

async function waitForSocket(socketPath: string, child: ChildProcess, logPath: string, spawnError: () => Error | undefined): Promise<void> {
  const giveUpAt = Date.now() + 60_000;
  for (;;) {
    const err = spawnError();
    if (err) throw new Error(`the engine could not be started: ${err.message}`);
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the engine exited (${child.exitCode ?? child.signalCode}):\n${readFileSync(logPath, 'utf8').slice(-3000)}`);
    const ok = await call(socketPath, 'GET', '/_ping').then((r) => r.status === 200, () => false);
    if (ok) return;
    if (Date.now() > giveUpAt) throw new Error(`the engine's socket never answered:\n${readFileSync(logPath, 'utf8').slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Every container (forced), network and volume of the engine. */
async function removeEverything(socketPath: string): Promise<void> {
  const containers = (await call(socketPath, 'GET', '/containers/json?all=1')).json ?? [];
  await Promise.all(containers.map((c: { Id: string }) => call(socketPath, 'DELETE', `/containers/${c.Id}?force=1&v=1`)));
  const networks = (await call(socketPath, 'GET', '/networks')).json ?? [];
  for (const n of networks as { Id: string; Name: string }[]) {
    if (!['bridge', 'host', 'none', 'podman'].includes(n.Name)) await call(socketPath, 'DELETE', `/networks/${n.Id}`);
  }
  const volumes = (await call(socketPath, 'GET', '/volumes')).json?.Volumes ?? [];
  await Promise.all(volumes.map((v: { Name: string }) => call(socketPath, 'DELETE', `/volumes/${v.Name}?force=1`)));
}

/**
 * The script that stops the daemon and removes its state: run by stop(), and by the watchdog
 * when the test process is gone without calling it.
 */
function cleanupScript(kind: EngineKind, dir: string, env: Record<string, string>): string {
  const podman = `podman --root ${dir}/root --runroot ${dir}/run --tmpdir ${dir}/tmp --network-config-dir ${dir}/networks --storage-driver overlay`;
  const envs = Object.entries(env).map(([k, v]) => `export ${k}=${v}`).join('\n');
  return `#!/bin/sh
${envs}
pid=$(cat ${dir}/daemon.pid 2>/dev/null)
${kind === 'dockerd' ? `if command -v docker >/dev/null; then
  D="docker -H unix://${dir}/dockerd.sock"
  $D ps -aq 2>/dev/null | xargs -r $D rm -f -v >/dev/null 2>&1
  $D network prune -f >/dev/null 2>&1
fi` : ''}
${kind === 'podman' ? `${podman} rm --all --force --time 0 >/dev/null 2>&1
${podman} volume rm --all --force >/dev/null 2>&1
${podman} network ls --format '{{.Name}}' 2>/dev/null | grep -vx podman | xargs -r ${podman} network rm --force >/dev/null 2>&1` : ''}
if [ -n "$pid" ]; then
  kill -TERM "$pid" 2>/dev/null
  i=0; while kill -0 "$pid" 2>/dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i+1)); done
  kill -KILL "$pid" 2>/dev/null
fi
# what the daemon left mounted under its dir (deepest first), then the dir
grep -o " ${dir}[^ ]*" /proc/mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
rm -rf ${dir}
`;
}

/**
 * Starts `kind` on a socket of its own, imports the test image, and returns it. The caller
 * stops it (`after(() => engine.stop())`).
 */
export async function startEngine(kind: EngineKind, opts: EngineOptions = {}): Promise<TestEngine> {
  const dir = mkdtempSync(join(tmpdir(), `gantry-${kind}-`));
  const socketPath = join(dir, `${kind}.sock`);
  const logPath = join(dir, 'daemon.log');
  const log = openSync(logPath, 'a');
  let env: Record<string, string> = {};
  let args: string[];
  let bin: string;
  if (kind === 'dockerd') {
    writeFileSync(join(dir, 'daemon.json'), '{}\n');
    bin = 'dockerd';
    const firewall = opts.firewall ? ['--iptables=true', '--ip-forward=true'] : ['--iptables=false', '--ip-forward=false'];
    args = [
      '--config-file', join(dir, 'daemon.json'), '--data-root', join(dir, 'data'), '--exec-root', join(dir, 'exec'),
      '--pidfile', join(dir, 'dockerd.pid'), '-H', `unix://${socketPath}`, ...firewall,
      '--ip-masq=false', '--bridge=none', '--storage-driver=overlay2', '--shutdown-timeout=1', '--log-level=warn',
    ];
    if (opts.firewall) {
      // a network namespace of its own, its loopback up (published ports bind 127.0.0.1 there);
      // unshare and the shell exec dockerd, so the pid stays the daemon's
      args = ['--net', '--', '/bin/sh', '-c', 'ip link set lo up && exec "$0" "$@"', bin, ...args];
      bin = 'unshare';
    }
  } else {
    for (const d of ['root', 'run', 'tmp', 'networks']) mkdirSync(join(dir, d));
    writeFileSync(join(dir, 'containers.conf'), [
      '[containers]', 'default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]', 'log_driver = "k8s-file"',
      '[engine]', 'runtime = "runc"', 'cgroup_manager = "cgroupfs"', 'events_logger = "file"', '',
    ].join('\n'));
    // no search registries (a short name fails at once); 127.0.0.1 registries over plain HTTP (a test's fake registry)
    writeFileSync(join(dir, 'registries.conf'), 'unqualified-search-registries = []\n[[registry]]\nlocation = "127.0.0.1"\ninsecure = true\n');
    // TMPDIR: the API's image loads (api_load.tar…) go to the engine's own tmp, removed with it, never /var/tmp
    env = { CONTAINERS_CONF: join(dir, 'containers.conf'), CONTAINERS_REGISTRIES_CONF: join(dir, 'registries.conf'), TMPDIR: join(dir, 'tmp') };
    bin = 'podman';
    args = [
      '--root', join(dir, 'root'), '--runroot', join(dir, 'run'), '--tmpdir', join(dir, 'tmp'), '--network-config-dir', join(dir, 'networks'),
      '--storage-driver', 'overlay', 'system', 'service', '--time=0', `unix://${socketPath}`,
    ];
  }
  const child = spawn(bin, args, { stdio: ['ignore', log, log], detached: true, env: { ...process.env, ...env } });
  let spawnError: Error | undefined;
  child.once('error', (err) => (spawnError = err)); // not installed: the start fails saying so
  child.unref();
  closeSync(log);
  writeFileSync(join(dir, 'daemon.pid'), `${child.pid}\n`);
  const script = join(dir, '..', `${dir.split('/').pop()}-cleanup.sh`);
  writeFileSync(script, `${cleanupScript(kind, dir, env)}rm -f ${script}\n`, { mode: 0o700 });
  // the watchdog: when this process is gone, the daemon and its state go too
  const watchdog = spawn('/bin/sh', ['-c', `while kill -0 ${process.pid} 2>/dev/null; do sleep 0.5; done; exec /bin/sh ${script}`], { stdio: 'ignore', detached: true });
  watchdog.unref();
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      try {
        process.kill(watchdog.pid!, 'SIGKILL');
      } catch {
        // gone already
      }
      // what a daemon keeps after it stops (dockerd's bridges of user networks) goes through its API first
      await removeEverything(socketPath).catch(() => {});
      await new Promise<void>((resolve) => spawn('/bin/sh', [script], { stdio: 'ignore' }).once('exit', () => resolve()));
    })();
    return stopped;
  };
  try {
    await waitForSocket(socketPath, child, logPath, () => spawnError);
    const rootfs = join(dir, 'rootfs');
    buildRootfs(rootfs);
    const tar = spawn('tar', ['-C', rootfs, '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [repo, tag] = [TEST_IMAGE.slice(0, TEST_IMAGE.lastIndexOf(':')), TEST_IMAGE.slice(TEST_IMAGE.lastIndexOf(':') + 1)];
    const imported = await call(socketPath, 'POST', `/images/create?fromSrc=-&repo=${encodeURIComponent(repo)}&tag=${tag}`, undefined, tar.stdout!);
    if (imported.status !== 200) throw new Error(`import of the test image: ${imported.status} ${JSON.stringify(imported.json)}`);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    kind, host: `unix://${socketPath}`, socketPath, dir, image: TEST_IMAGE,
    api: (method, path, body) => call(socketPath, method, path, body),
    stop,
  };
}

/**
 * Runs `cmd` in a running container through the engine's exec API (the test's own hand, not
 * Gantry's), as `user` when given; resolves once it ends, with its exit code and its output
 * (stdout and stderr, the 8-byte frames taken apart).
 */
export async function execIn(e: TestEngine, name: string, cmd: string[], user?: string): Promise<{ code: number; output: string }> {
  const made = await e.api('POST', `/containers/${name}/exec`, { Cmd: cmd, AttachStdout: true, AttachStderr: true, ...(user ? { User: user } : {}) });
  if (made.status !== 201) throw new Error(`exec in ${name}: ${made.status} ${JSON.stringify(made.json)}`);
  const raw = await new Promise<Buffer>((resolve, reject) => {
    const req = request({ socketPath: e.socketPath, method: 'POST', path: `/v1.41/exec/${made.json.Id}/start`, headers: { 'content-type': 'application/json' }, timeout: 60_000 }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve(Buffer.concat(parts)));
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error(`exec in ${name}: no end in 60 s`)));
    req.end(JSON.stringify({ Detach: false, Tty: false }));
  });
  const out: Buffer[] = [];
  for (let off = 0; off + 8 <= raw.length;) {
    const size = raw.readUInt32BE(off + 4);
    out.push(raw.subarray(off + 8, off + 8 + size));
    off += 8 + size;
  }
  const info = await e.api('GET', `/exec/${made.json.Id}/json`);
  return { code: info.json.ExitCode, output: Buffer.concat(out).toString('utf8') };
}

/** A made-up GPU UUID in nvidia-smi's form, new for each test (engines are shared by nothing, CDI files are). */
export function fakeGpuUuid(): string {
  return `GPU-${randomBytes(4).toString('hex')}-0000-4000-8000-${randomBytes(6).toString('hex')}`;
}

/**
 * On Podman, a fake CDI spec for `gpu`: its device is /dev/null, seen in the container as
 * /dev/gantry-gpu, and GANTRY_FAKE_GPU=<uuid> is set, so a test sees the GPU it was given.
 * Podman 4.3 reads /etc/cdi and /var/run/cdi only (containers.conf has no cdi_spec_dirs yet).
 * Returns the removal, for t.after. dockerd needs none: the driver's nvidia mode sets the env.
 */
export function fakeCdiGpu(kind: EngineKind, gpu: string): () => void {
  if (kind !== 'podman') return () => {};
  mkdirSync('/var/run/cdi', { recursive: true });
  const file = `/var/run/cdi/gantry-test-${gpu}.json`;
  writeFileSync(file, JSON.stringify({
    cdiVersion: '0.5.0', kind: 'nvidia.com/gpu',
    devices: [{ name: gpu, containerEdits: { deviceNodes: [{ path: '/dev/gantry-gpu', hostPath: '/dev/null' }], env: [`GANTRY_FAKE_GPU=${gpu}`] } }],
  }));
  return () => rmSync(file, { force: true });
}
