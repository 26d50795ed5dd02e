// Two Gantry processes on a PostgreSQL and a Redis of the test's own, for the fault suites:
// they kill and restart those dependencies under traffic. Everything is torn down by close().
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type Server } from '../helpers/server.ts';
import { startOwnPostgres, canRunOwnPostgres, type OwnPostgres } from '../helpers/own-postgres.ts';
import { startOwnRedis, type OwnRedis } from '../helpers/own-redis.ts';

/** The fault suites run in CI's pass with real services (TEST_DATABASE_URL), on machines that have the binaries. */
export const skipFaults = !process.env.TEST_DATABASE_URL ? 'fault suites run with TEST_DATABASE_URL (CI\'s real-services pass)'
  : !canRunOwnPostgres() ? 'needs initdb and pg_ctl' : false;

export interface Answer {
  status: number;
  body: any;
  ms: number;
}

export interface Cluster {
  pg: OwnPostgres;
  redis: OwnRedis;
  replicas: [Server, Server];
  adminToken: string;
  api(server: Server, token: string, method: string, path: string, body?: unknown): Promise<Answer>;
  close(): Promise<void>;
}

export async function startCluster(env: Record<string, string> = {}): Promise<Cluster> {
  const pg = await startOwnPostgres();
  const redis = await startOwnRedis();
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-faults-'));
  const servers: Server[] = [];
  const common = {
    DATABASE_URL: pg.url, REDIS_URL: redis.url, GANTRY_DATA_DIR: dataDir, GANTRY_SIM_TTFT_MS: '5', ...env,
  };
  try {
    servers.push(await startServer(common, { watchdogMs: 300_000 })); // the first one bootstraps
    servers.push(await startServer(common, { watchdogMs: 300_000 }));
  } catch (e) {
    for (const s of servers) await s.kill('SIGKILL');
    await redis.stop();
    pg.destroy();
    throw e;
  }
  const creds = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as { adminToken: string };
  const api = async (server: Server, token: string, method: string, path: string, body?: unknown): Promise<Answer> => {
    const t0 = performance.now();
    const res = await fetch(server.url + path, {
      method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch { /* SSE or plain text */ }
    return { status: res.status, body: parsed, ms: performance.now() - t0 };
  };
  return {
    pg, redis, replicas: servers as [Server, Server], adminToken: creds.adminToken, api,
    close: async () => {
      for (const s of servers) await s.kill('SIGTERM');
      await redis.stop();
      pg.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Both Gantry processes are still running (a dependency failing must never end one). */
export function assertAlive(c: Cluster): void {
  for (const s of c.replicas) {
    assert.equal(s.child.exitCode, null, `a replica exited (${s.child.exitCode}):\n${s.output().slice(-2000)}`);
    assert.equal(s.child.signalCode, null, `a replica died of ${s.child.signalCode}:\n${s.output().slice(-2000)}`);
    assert.doesNotMatch(s.output(), /Unhandled 'error' event|unhandledRejection|uncaughtException/, 'no unhandled errors');
  }
}

/** A team with a key, through the operator API. */
export async function teamWithKey(c: Cluster, name: string, topupUnits: number): Promise<{ userId: string; ownerMemberId: string; keyId: string; apiKey: string }> {
  const [a] = c.replicas;
  const t = await c.api(a, c.adminToken, 'POST', '/admin/v1/teams', { name, ownerEmail: `owner@${name}.test` });
  assert.equal(t.status, 200, JSON.stringify(t.body));
  const k = await c.api(a, c.adminToken, 'POST', `/admin/v1/members/${t.body.ownerMemberId}/keys`, { name: 'k' });
  assert.equal(k.status, 200, JSON.stringify(k.body));
  if (topupUnits > 0) {
    const r = await c.api(a, c.adminToken, 'POST', `/admin/v1/teams/${t.body.userId}/topups`, { amount: topupUnits, idempotencyKey: `${name}-topup` });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  return { userId: t.body.userId, ownerMemberId: t.body.ownerMemberId, keyId: k.body.keyId, apiKey: k.body.apiKey };
}

/** The p-th percentile of numbers (nearest rank). */
export function percentile(values: number[], p: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
