// `gantry doctor`: what this configuration needs, checked one thing at a time, a line each
// with what to do when it is wrong: the store, Redis, the blob store, the compute driver and
// its engine, GPUs and the NVIDIA toolkit (the docker driver), each model upstream of the
// running server's catalogue, and the public URL with its TLS. Nothing is created or changed:
// the store is not opened (a running server holds the embedded one), a bucket is asked for a
// key that does not exist. Exit 1 when a check failed; warnings do not fail.
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { promisify } from 'node:util';
import type { Config } from '../config.ts';
import { readCredentials, storeOf } from './credentials.ts';

type Env = Record<string, string | undefined>;
type Verdict = 'ok' | 'warn' | 'FAIL' | 'skip';
export interface Check {
  verdict: Verdict;
  what: string;
  /** what was found, and when it is not ok, what to do */
  said: string;
}

const TIMEOUT_MS = 5_000;
const check = (verdict: Verdict, what: string, said: string): Check => ({ verdict, what, said });

/** A URL as it may be printed: its password replaced. */
export function shown(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return '(not a URL)';
  }
}

const reason = (e: unknown) => (e as { code?: string }).code ?? (e as Error).message ?? String(e);

async function storeCheck(config: Config): Promise<Check> {
  if (!config.databaseUrl) {
    const { holdsDatabase } = await import('../store/pglite-template.ts');
    if (!existsSync(config.dataDir)) return check('ok', 'store', `embedded (PGlite) in ${config.dataDir}: not made yet, the first gantry serve makes it`);
    try {
      accessSync(config.dataDir, constants.W_OK);
    } catch {
      return check('FAIL', 'store', `embedded in ${config.dataDir}, which this user may not write: fix its owner (chown) or set GANTRY_DATA_DIR`);
    }
    return check('ok', 'store', `embedded (PGlite) in ${config.dataDir}${holdsDatabase(config.dataDir) ? '' : ': no database yet, the first gantry serve makes it'}`);
  }
  const [{ default: pg }, { explainConnectError }] = await Promise.all([import('pg'), import('../store/pg-connect.ts')]);
  const client = new pg.Client({ connectionString: config.databaseUrl, connectionTimeoutMillis: TIMEOUT_MS });
  client.on('error', () => {}); // a connection lost after the check: nothing to say
  try {
    await client.connect();
    const r = await client.query<{ version: string }>('select version()');
    return check('ok', 'store', `PostgreSQL at ${shown(config.databaseUrl)} answers (${String(r.rows[0]?.version).split(' ').slice(0, 2).join(' ')})`);
  } catch (e) {
    return check('FAIL', 'store', explainConnectError(e, config.databaseUrl) ?? `PostgreSQL at ${shown(config.databaseUrl)}: ${reason(e)}; fix DATABASE_URL or start the database`);
  } finally {
    await client.end().catch(() => {});
  }
}

async function redisCheck(config: Config): Promise<Check> {
  if (!config.redisUrl) return check('ok', 'redis', 'not configured: counters in this process (one replica; set REDIS_URL to run several)');
  const { Redis } = await import('ioredis');
  const redis = new Redis(config.redisUrl, { lazyConnect: true, connectTimeout: TIMEOUT_MS, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  let cause: unknown;
  redis.on('error', (e) => { cause ??= e; }); // the connection's own error says more than the command's
  try {
    await redis.connect();
    await redis.ping();
    return check('ok', 'redis', `${shown(config.redisUrl)} answers PING`);
  } catch (e) {
    return check('FAIL', 'redis', `${shown(config.redisUrl)} does not answer (${reason(cause ?? e)}): start Redis or fix REDIS_URL`);
  } finally {
    redis.disconnect();
  }
}

async function blobCheck(config: Config): Promise<Check> {
  const b = config.blobs;
  if (b.kind !== 's3') {
    const dir = existsSync(b.dir) ? b.dir : config.dataDir;
    if (existsSync(dir)) {
      try {
        accessSync(dir, constants.W_OK);
      } catch {
        return check('FAIL', 'blob store', `local files in ${b.dir}, which this user may not write: fix its owner or set GANTRY_BLOB_DIR`);
      }
    }
    return check('ok', 'blob store', `local files in ${b.dir}`);
  }
  const { openBlobStore } = await import('../store/blobs/index.ts');
  const where = `bucket ${b.s3.bucket} at ${b.s3.endpoint ?? 'AWS S3'}`;
  const store = await openBlobStore(b);
  try {
    // a key that does not exist: reachable, the credentials accepted and the bucket there, or not
    await withTimeout(store.stat('gantry-doctor/absent'), `no answer in ${TIMEOUT_MS / 1000} s`);
    return check('ok', 'blob store', `S3 ${where} answers`);
  } catch (e) {
    return check('FAIL', 'blob store', `S3 ${where}: ${reason(e)}; check GANTRY_S3_ENDPOINT, GANTRY_S3_BUCKET and the access key`);
  } finally {
    await store.close().catch(() => {});
  }
}

function withTimeout<T>(p: Promise<T>, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), TIMEOUT_MS);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

async function driverCheck(config: Config): Promise<Check> {
  const kind = config.computeDriver.kind;
  if (kind === 'sim') return check('ok', 'compute', 'the simulated driver: GPUs and instances in this process (GANTRY_COMPUTE_DRIVER=docker or kubernetes for real ones)');
  const [{ createDriver }, { systemClock }] = await Promise.all([import('../drivers/index.ts'), import('../lib/clock.ts')]);
  try {
    const driver = await createDriver(config.computeDriver, { clock: systemClock });
    try {
      const ids = await withTimeout(driver.list(), `no answer in ${TIMEOUT_MS / 1000} s`);
      return check('ok', 'compute', `the ${kind} driver reaches its engine (${ids.length} workload${ids.length === 1 ? '' : 's'} of Gantry's there)`);
    } finally {
      await driver.close().catch(() => {});
    }
  } catch (e) {
    const todo = kind === 'docker' ? 'start dockerd or Podman\'s API service, or fix GANTRY_DOCKER_HOST' : 'check KUBECONFIG (or the in-cluster service account), GANTRY_KUBE_NAMESPACE and the RBAC of deploy/kubernetes';
    return check('FAIL', 'compute', `the ${kind} driver cannot reach its engine (${reason(e)}): ${todo}`);
  }
}

/** GPUs matter where Gantry runs the containers itself (the docker driver); a cluster has its own device plugin. */
async function gpuCheck(config: Config): Promise<Check> {
  if (config.computeDriver.kind !== 'docker') return check('skip', 'gpus', `the ${config.computeDriver.kind} driver: no GPU of this machine is used`);
  const run = promisify(execFile);
  const gpus = await run('nvidia-smi', ['-L'], { timeout: TIMEOUT_MS }).then((r) => r.stdout.split('\n').filter((l) => l.startsWith('GPU ')).length, () => undefined);
  if (gpus === undefined) return check('warn', 'gpus', 'no NVIDIA driver (nvidia-smi): only instances without GPUs can run here; install the NVIDIA driver for GPU ones');
  const toolkit = await run('nvidia-ctk', ['--version'], { timeout: TIMEOUT_MS }).then(() => true, () => false);
  if (!toolkit) return check('FAIL', 'gpus', `${gpus} GPU(s), but no NVIDIA Container Toolkit (nvidia-ctk): install it and generate the CDI spec (nvidia-ctk cdi generate), or containers get no GPU`);
  return check('ok', 'gpus', `${gpus} GPU(s) and the NVIDIA Container Toolkit`);
}

/** Each distinct upstream of the running server's catalogue: reachable, its key accepted, the model listed. */
async function upstreamChecks(config: Config, env: Env): Promise<Check[]> {
  const base = env.GANTRY_URL ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
  let token = env.GANTRY_ADMIN_TOKEN;
  try {
    token ??= readCredentials(config.dataDir, storeOf(config.databaseUrl))?.adminToken;
  } catch { /* said below as no token */ }
  if (!token) return [check('skip', 'upstreams', `no operator token (GANTRY_ADMIN_TOKEN or credentials.json) to read the catalogue of the server at ${base}`)];
  const models = await fetch(`${base}/admin/v1/models`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(TIMEOUT_MS) })
    .then(async (r) => (r.ok ? ((await r.json()) as { models?: { id: string; upstream: unknown }[] }).models ?? [] : Promise.reject(new Error(`answered ${r.status}`))))
    .catch((e: unknown) => e as Error);
  if (models instanceof Error) return [check('skip', 'upstreams', `the server at ${base} does not answer (${reason(models)}): start it (or set GANTRY_URL) to check its models' upstreams`)];
  const targets = models.flatMap((m) => [m.upstream].flat().filter((u): u is { url: string; model?: string; apiKeyEnv?: string } => typeof u === 'object' && u !== null && 'url' in u).map((u) => ({ ...u, of: m.id })));
  if (!targets.length) return [check('ok', 'upstreams', `${models.length} model(s), all on the simulator`)];
  return Promise.all(targets.map((t) => upstreamCheck(t, env)));
}

async function upstreamCheck(t: { url: string; model?: string; apiKeyEnv?: string; of: string }, env: Env): Promise<Check> {
  const what = `upstream ${t.of}`;
  const key = t.apiKeyEnv ? env[t.apiKeyEnv] : undefined;
  if (t.apiKeyEnv && !key) return check('FAIL', what, `${shown(t.url)}: its key is read from ${t.apiKeyEnv}, which is not set here: set it where the server runs`);
  try {
    const r = await fetch(`${t.url.replace(/\/+$/, '')}/models`, { headers: key ? { authorization: `Bearer ${key}` } : {}, signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (r.status === 401 || r.status === 403) return check('FAIL', what, `${shown(t.url)} refuses the key (${r.status}): fix ${t.apiKeyEnv ?? 'the upstream key (apiKeyEnv)'}`);
    if (!r.ok) return check('warn', what, `${shown(t.url)}/models answered ${r.status}: the server may not list models; a model call will tell`);
    const listed = ((await r.json().catch(() => ({}))) as { data?: { id?: string }[] }).data?.map((m) => m.id) ?? [];
    const name = t.model ?? t.of;
    if (!listed.includes(name)) return check('FAIL', what, `${shown(t.url)} answers but does not list ${name} (it lists ${listed.slice(0, 5).join(', ') || 'none'}): fix the model's upstream.model`);
    return check('ok', what, `${shown(t.url)} answers, accepts the key and lists ${name}`);
  } catch (e) {
    return check('FAIL', what, `${shown(t.url)} does not answer (${reason((e as Error).cause ?? e)}): start it, or fix the model's upstream.url`);
  }
}

/** What clients are told the address is (GANTRY_PUBLIC_URL), and over https whether its certificate holds. */
async function publicUrlCheck(config: Config, env: Env): Promise<Check> {
  const url = config.serverless.publicBaseUrl;
  if (!env.GANTRY_PUBLIC_URL) return check('warn', 'public URL', `not set: links and endpoint URLs name ${url}, right for this machine only; set GANTRY_PUBLIC_URL to the address clients use`);
  const u = new URL(url);
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname);
  if (u.protocol === 'http:') {
    return check(local ? 'ok' : 'warn', 'public URL', `${url}${local ? '' : ': plain HTTP, so API keys cross the network readable; put TLS in front (docs/production.md) and an https URL here'}`);
  }
  try {
    const r = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    return check(r.ok ? 'ok' : 'warn', 'public URL', `${url}: TLS holds${r.ok ? ' and /healthz answers' : `, /healthz answered ${r.status}`}`);
  } catch (e) {
    return check('FAIL', 'public URL', `${url}: ${reason((e as Error).cause ?? e)}: the certificate, the proxy or the DNS name is wrong`);
  }
}

/** Every check, in order. */
export async function doctorChecks(config: Config, env: Env): Promise<Check[]> {
  const [store, redis, blobs, compute, gpus, upstreams, publicUrl] = await Promise.all([
    storeCheck(config), redisCheck(config), blobCheck(config), driverCheck(config), gpuCheck(config), upstreamChecks(config, env), publicUrlCheck(config, env),
  ]);
  return [store, redis, blobs, compute, gpus, ...upstreams, publicUrl];
}

export function doctorReport(checks: Check[]): { text: string; failed: boolean } {
  const lines = checks.map((c) => `${c.verdict.padEnd(4)}  ${c.what.padEnd(12)}  ${c.said}`);
  const count = (v: Verdict) => checks.filter((c) => c.verdict === v).length;
  lines.push(`${checks.length} checks: ${count('ok')} ok, ${count('warn')} to look at, ${count('FAIL')} failed${count('skip') ? `, ${count('skip')} skipped` : ''}`);
  return { text: lines.join('\n'), failed: count('FAIL') > 0 };
}
