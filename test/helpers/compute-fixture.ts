// Test fixture for the compute routes: an app, a team with every role, and a clock the
// tests advance while running reconciler passes (no sleeping).
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from './app.ts';
import { createTeam, topup, type Team } from './factories.ts';
import { as } from './http.ts';
import type { SimDriver } from '../../src/drivers/sim/driver.ts';

export const BASE = '/gpu-instance/openapi/v1';
export const PRODUCT = 'prd_rtx4090_24g';
export const PRICE = 3500n; // seeded units per GPU-hour
export const SPOT_PRICE = 1750n;
export const MONTHLY_PRICE = 2_000_000n;

export interface Fixture {
  t: TestApp;
  team: Team;
  owner: ReturnType<typeof as>;
  admin: ReturnType<typeof as>;
  sim: SimDriver;
  /** advance the clock in steps of `stepMs`, running a reconciler pass after each */
  run(ms: number, stepMs?: number): Promise<void>;
  /** run until the instance reaches `status` (fails after `maxMs`) */
  until(id: string, status: string, maxMs?: number): Promise<any>;
  get(id: string): Promise<any>;
  create(body?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export async function fixture(opts: { topupUnits?: number; env?: Record<string, string> } = {}): Promise<Fixture> {
  const t = await buildTestApp(opts.env ? { env: opts.env } : {});
  const team = await createTeam(t.app, t.creds.adminToken);
  if (opts.topupUnits !== 0) await topup(t.app, t.creds.adminToken, team.userId, opts.topupUnits ?? 10_000_000);
  const owner = as(t.app, team.owner.apiKey);
  const f: Fixture = {
    t, team, owner, admin: as(t.app, t.creds.adminToken),
    sim: t.services.compute.driver as SimDriver,
    async run(ms, stepMs = 500) {
      for (let done = 0; done < ms; done += stepMs) {
        t.clock.advance(Math.min(stepMs, ms - done));
        await t.services.compute.reconcile();
      }
    },
    async until(id, status, maxMs = 120_000) {
      await t.services.compute.reconcile();
      for (let waited = 0; ; waited += 500) {
        const r = await f.get(id);
        if (r.status === status) return r;
        assert.ok(waited < maxMs, `instance ${id} did not reach ${status} within ${maxMs} ms (is ${r.status}, ${JSON.stringify(r.statusError)})`);
        await f.run(500);
      }
    },
    async get(id) {
      const r = await owner.get(`${BASE}/gpu/instance`, { instanceId: id });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body;
    },
    async create(body = {}) {
      const r = await owner.post(`${BASE}/gpu/instance/create`, {
        name: 'box', productId: PRODUCT, gpuNum: 1, rootfsSize: 50, imageUrl: 'nvidia/cuda:12.4.0-base-ubuntu22.04', kind: 'gpu', ...body,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.id;
    },
    close: () => t.close(),
  };
  return f;
}

/** Ledger charges of a team for one instance, through the usage bill API a user reads. */
export async function gpuChargesMicro(f: Fixture, instanceId: string): Promise<bigint> {
  const rows = await f.t.store.db.execute(
    `select coalesce(sum(amount_micro), 0)::text as s from ledger_entries where owner_id = '${instanceId}' and kind = 'charge'` as never,
  ) as unknown as { rows: { s: string }[] };
  return BigInt(rows.rows[0]!.s);
}
