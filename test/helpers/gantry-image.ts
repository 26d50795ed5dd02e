// Gantry's image for the tests that build and run it (test/container-image.image.test.ts, and
// test/container-image-postgres.image.test.ts in the services pass): built with Podman from the
// Containerfile on a local Debian base, in a storage of the tests' own, and run as an
// operator would. No registry is reachable in CI: the base is a Debian made here by
// `debootstrap --variant=minbase` (from the mirror the machine's apt uses, with the
// machine's own CA certificates, as a site's base image would carry them), imported with
// `podman import` and kept under a tag naming a hash of what made it, so later runs on the
// machine reuse it; the last build stays tagged (CACHE_TAG), so a later build reuses its
// layers (npm ci is the slow step). Builds take turns (test/helpers/exclusive.ts): a second
// test process waits and gets the first one's layers. Needs root, podman and debootstrap:
// `imageSkip` says why a test cannot run, never in CI (GANTRY_TEST_REQUIRE_ENGINES=1).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { firstCurl } from './doc-pages.ts';
import { exclusive } from './exclusive.ts';
import { until } from './wait.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SUITE = 'bookworm';
/** Bumped when the recipe of the local base changes: part of its tag, so an old base is not reused. */
const BASE_RECIPE = 1;
const RUN_ID = randomBytes(4).toString('hex');
/** This test process's image (a tag of the last build). */
export const IMAGE = `localhost/gantry-test/gantry:${RUN_ID}`;
/** The last image built on this machine: it keeps the build's layers for the next run. */
const CACHE_TAG = 'localhost/gantry-test/gantry:cache';

function which(bin: string): boolean {
  return ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin', ...(process.env.PATH ?? '').split(':')]
    .some((d) => d && existsSync(join(d, bin)));
}

function skipReason(): string | false {
  if (process.env.GANTRY_TEST_REQUIRE_ENGINES === '1') return false;
  const missing = ['podman', 'debootstrap'].filter((b) => !which(b));
  if (missing.length) return `${missing.join(' and ')} not installed (apt-get install podman debootstrap)`;
  if (process.getuid?.() !== 0) return 'debootstrap and the rootful podman these tests use need root';
  return false;
}
/** Why the image tests cannot run here, or false. */
export const imageSkip = skipReason();

// --- Podman, with the settings this sandbox needs (as test/helpers/engines.ts) ------------

/**
 * Images live in a storage of these tests' own, kept between runs (the base and the build's
 * layers are the cache) and pruned of nothing but their leftovers.
 */
const STORAGE = ['--root', '/var/tmp/gantry-image-test/storage', '--runroot', '/run/gantry-image-test', '--storage-driver', 'overlay'];
const work = mkdtempSync('/var/tmp/gantry-image-test-run-');
const containersConf = join(work, 'containers.conf');
writeFileSync(containersConf, [
  '[containers]', 'default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]', 'log_driver = "k8s-file"',
  '[engine]', 'runtime = "runc"', 'cgroup_manager = "cgroupfs"', 'events_logger = "file"', '',
].join('\n'));
const ENV = { ...process.env, CONTAINERS_CONF: containersConf };

export interface Run { code: number | null; out: string; err: string }

/** Runs a command to its end: its exit code and what it wrote (killed after `timeoutMs`). */
export function run(cmd: string, args: string[], opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env: opts.env ?? ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.once('error', (e) => {
      clearTimeout(timer);
      resolve({ code: -1, out, err: err + e.message });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

export function podmanRun(args: string[], timeoutMs = 60_000): Promise<Run> {
  return run('podman', [...STORAGE, ...args], { timeoutMs });
}

export async function podman(args: string[], timeoutMs = 60_000): Promise<string> {
  const r = await podmanRun(args, timeoutMs);
  assert.equal(r.code, 0, `podman ${args.join(' ')} failed (${r.code}):\n${(r.err || r.out).slice(-3000)}`);
  return r.out.trim();
}

// --- The local Debian base ----------------------------------------------------------------

/** The mirror the machine's apt fetches Debian from (sources.list or deb822 .sources). */
function aptMirror(): string {
  const files = ['/etc/apt/sources.list', ...(existsSync('/etc/apt/sources.list.d')
    ? readdirSync('/etc/apt/sources.list.d').filter((f) => /\.(list|sources)$/.test(f)).map((f) => `/etc/apt/sources.list.d/${f}`) : [])];
  for (const f of files.filter((p) => existsSync(p))) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)/gm)) if (m[2] === SUITE) return m[1]!;
    for (const stanza of text.split(/\n\s*\n/)) {
      const uri = /^URIs:\s*(\S+)/m.exec(stanza)?.[1];
      const suites = /^Suites:\s*(.+)$/m.exec(stanza)?.[1]?.split(/\s+/) ?? [];
      if (uri && /^Types:.*\bdeb\b/m.test(stanza) && suites.includes(SUITE)) return uri;
    }
  }
  return 'http://deb.debian.org/debian';
}

/** The site's own CA certificates (what `update-ca-certificates` adds to Debian's list). */
function siteCas(): { name: string; pem: Buffer }[] {
  const dir = '/usr/local/share/ca-certificates';
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.crt')).sort()
    .map((name) => ({ name, pem: readFileSync(join(dir, name)) }));
}

/** A Debian minbase as a local image, made once per machine (and per recipe, mirror and CAs). */
async function localBase(diag: (s: string) => void): Promise<string> {
  const mirror = aptMirror();
  const cas = siteCas();
  const key = createHash('sha256').update(JSON.stringify({ SUITE, BASE_RECIPE, mirror, cas: cas.map((c) => [c.name, c.pem.toString('base64')]) }))
    .digest('hex').slice(0, 16);
  const name = `localhost/gantry-test/debian-${SUITE}:${key}`;
  if ((await podmanRun(['image', 'exists', name])).code === 0) {
    diag(`base ${name} reused`);
    return name;
  }
  const t0 = Date.now();
  const rootfs = join(work, 'rootfs');
  const boot = await run('debootstrap', ['--variant=minbase', SUITE, rootfs, mirror], { timeoutMs: 300_000 });
  assert.equal(boot.code, 0, `debootstrap ${SUITE} from ${mirror} failed:\n${(boot.err + boot.out).slice(-3000)}`);
  // what debian:*-slim leaves out too: apt's lists and caches, documentation, locales
  for (const d of ['var/cache/apt', 'var/lib/apt/lists', 'usr/share/doc', 'usr/share/man', 'usr/share/info', 'usr/share/locale']) {
    rmSync(join(rootfs, d), { recursive: true, force: true });
  }
  mkdirSync(join(rootfs, 'var/lib/apt/lists/partial'), { recursive: true });
  mkdirSync(join(rootfs, 'var/cache/apt/archives/partial'), { recursive: true });
  mkdirSync(join(rootfs, 'usr/local/share/ca-certificates'), { recursive: true });
  for (const c of cas) writeFileSync(join(rootfs, 'usr/local/share/ca-certificates', c.name.replaceAll('/', '_')), c.pem);
  // a tar piped into `podman import`; under the tag only once whole
  const imported = await run('sh', ['-c', `tar -C '${rootfs}' -c . | podman ${STORAGE.join(' ')} import - '${name}'`], { timeoutMs: 300_000 });
  rmSync(rootfs, { recursive: true, force: true });
  assert.equal(imported.code, 0, `podman import of the base failed:\n${imported.err.slice(-3000)}`);
  diag(`base ${name} made by debootstrap from ${mirror} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return name;
}

export interface Built { image: string; base: string; size: number; baseSize: number; seconds: number }

/** Builds the Containerfile on the local base (`podman build --format docker`, as docs/production.md says), tagged IMAGE. */
export async function buildImage(diag: (s: string) => void): Promise<Built> {
  const release = await exclusive('gantry-image-build', 900_000);
  try {
    const base = await localBase(diag);
    const t0 = Date.now();
    const r = await podmanRun(['build', '--format', 'docker', '--build-arg', `BASE=${base}`, '-t', IMAGE, '-t', CACHE_TAG, '-f', join(ROOT, 'Containerfile'), ROOT], 840_000);
    assert.equal(r.code, 0, `podman build failed:\n${(r.out + r.err).slice(-4000)}`);
    const seconds = (Date.now() - t0) / 1000;
    // Layers untagged for 6 hours (the storage is these tests' own). Not every untagged one: the
    // build stage's layers (npm ci, the template) are untagged at once, and pruning them made the
    // services pass's build of the same sources cold again (92 s instead of ~15 s in CI).
    await podman(['image', 'prune', '--force', '--filter', 'until=6h'], 120_000);
    const [size, baseSize] = JSON.parse(await podman(['image', 'inspect', '--format', '{{.Size}}', IMAGE, base]).then((o) => `[${o.split('\n').join(',')}]`)) as number[];
    diag(`image ${IMAGE}: ${(size! / 1e6).toFixed(0)} MB (base ${(baseSize! / 1e6).toFixed(0)} MB), built in ${seconds.toFixed(0)} s`);
    return { image: IMAGE, base, size: size!, baseSize: baseSize!, seconds };
  } finally {
    release();
  }
}

// --- Containers ---------------------------------------------------------------------------

const containers = new Set<string>();
const volumes = new Set<string>();

/** A container name of this test process's own. */
export function containerName(what: string): string {
  const name = `gantry-test-${RUN_ID}-${what}`;
  containers.add(name);
  return name;
}

/** A volume name of this test process's own. */
export function volumeName(what: string): string {
  const name = `gantry-test-${RUN_ID}-${what}`;
  volumes.add(name);
  return name;
}

/** Removes this process's containers, volumes and image tag (the layers stay under CACHE_TAG); for `after`. */
export async function cleanUp(): Promise<void> {
  for (const c of containers) await podmanRun(['rm', '--force', '--time', '0', c]);
  for (const v of volumes) await podmanRun(['volume', 'rm', '--force', v]);
  await podmanRun(['rmi', IMAGE]);
  rmSync(work, { recursive: true, force: true });
}

export interface Started { name: string; url: string; logs: () => Promise<string> }

/** `podman run -d` the image, then waits for its listen line; the published port (or PORT on the host network) is the URL. */
export async function start(name: string, args: string[], url?: string): Promise<Started> {
  await podman(['run', '-d', '--name', name, ...args, IMAGE]);
  return { name, ...(await listening(name, url)) };
}

const starts = (logs: string) => logs.split('Gantry listening on').length - 1;

/** Waits for the container's start number `nth` (1: its first) to say it listens. */
export async function listening(name: string, url?: string, nth = 1): Promise<Omit<Started, 'name'>> {
  const logs = async () => {
    const r = await podmanRun(['logs', name]);
    return r.out + r.err;
  };
  let seen = '';
  await until(`${name} says it is listening (start ${nth})`, async () => {
    seen = await logs();
    if (starts(seen) >= nth) return true;
    const state = await podman(['inspect', '--format', '{{.State.Status}}', name]);
    if (state === 'exited') assert.fail(`${name} exited before listening:\n${seen.slice(-3000)}`);
    return false;
  }, { limitMs: 60_000, everyMs: 200 }).catch((e: Error) => assert.fail(`${e.message}\n${seen.slice(-3000)}`));
  if (!url) {
    const port = /:(\d+)\s*$/.exec(await podman(['port', name, '8080/tcp']))?.[1];
    assert.ok(port, `no published port for ${name}`);
    url = `http://127.0.0.1:${port}`;
  }
  return { url, logs };
}

/** The first start's printed credentials. */
export function printed(logs: string): { apiKey: string; adminToken: string; keyId: string } {
  const field = (name: string) => new RegExp(`^\\s+${name}\\s+(\\S+)$`, 'm').exec(logs)?.[1];
  const [apiKey, adminToken, keyId] = [field('apiKey'), field('adminToken'), field('keyId')];
  assert.ok(apiKey && adminToken && keyId, `the first start printed no credentials:\n${logs.slice(-2000)}`);
  return { apiKey, adminToken, keyId };
}

/** The README tour's first curl example (the balance), run as written with B and KEY set. */
function readmeFirstCurl(): string {
  const cmd = firstCurl(readFileSync(join(ROOT, 'README.md'), 'utf8'), 'A five-minute tour');
  assert.ok(cmd.includes('$KEY') && cmd.includes('$B'), `the README's first curl example is not where the test looks: ${cmd}`);
  return cmd;
}

export async function readmeBalance(url: string, key: string): Promise<{ availableBalance: string }> {
  const r = await run('bash', ['-c', readmeFirstCurl()], { env: { PATH: process.env.PATH, B: url, KEY: key } });
  assert.equal(r.code, 0, `the README's first curl failed: ${r.err}`);
  const body = JSON.parse(r.out) as { availableBalance?: string };
  assert.ok(body.availableBalance, `not a balance: ${r.out}`);
  return body as { availableBalance: string };
}

export async function credentialsInVolume(name: string, file = 'credentials.json'): Promise<{ apiKey: string; adminToken: string; keyId: string; mode: string }> {
  const text = await podman(['exec', name, 'cat', `/var/lib/gantry/${file}`]);
  const mode = await podman(['exec', name, 'stat', '-c', '%a %U', `/var/lib/gantry/${file}`]);
  return { ...(JSON.parse(text) as { apiKey: string; adminToken: string; keyId: string }), mode };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
