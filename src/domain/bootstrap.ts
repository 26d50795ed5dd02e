// First start: an operator token, a first team with an Owner and a key, a usable catalogue
// and a starting voucher, so a newcomer can call models at once.
import { newOperatorToken, sha256Hex } from '../lib/ids.ts';
import { unitsToMicro } from '../lib/money.ts';
import type { Ctx } from './context.ts';
import { inTransaction } from './changes.ts';
import type { Db } from '../store/db.ts';
import { claimSetting } from '../store/settings.ts';
import { OPERATOR_TOKEN_KEY } from './operator-token.ts';
import { createTeam } from './accounts/teams.ts';
import { createKey } from './keys/keys.ts';
import { post } from './billing/ledger.ts';
import { upsertModel, type ModelInput } from './models/models.ts';
import { upsertQuotaDefinition } from './quotas/quotas.ts';
import { seedCompute } from './compute/seed.ts';

export interface Credentials {
  adminToken: string;
  userId: string;
  ownerMemberId: string;
  keyId: string;
  apiKey: string;
}

export const SEED_MODELS: ModelInput[] = [
  {
    id: 'gantry/sim-chat-small', title: 'Sim Chat Small', description: 'Built-in simulator: a small, fast chat model',
    contextSize: 32768, inputTokenPricePerM: 1000, outputTokenPricePerM: 2000, status: 'available', upstream: 'sim',
  },
  {
    id: 'gantry/sim-chat-large', title: 'Sim Chat Large', description: 'Built-in simulator: a larger chat model',
    contextSize: 131072, inputTokenPricePerM: 5000, outputTokenPricePerM: 15000, status: 'available', upstream: 'sim',
  },
  {
    id: 'gantry/sim-embed', title: 'Sim Embed', description: 'Built-in simulator: deterministic embeddings and rerank',
    contextSize: 8192, inputTokenPricePerM: 200, outputTokenPricePerM: 0, status: 'available', upstream: 'sim',
  },
];

/** compat.md's typical RPM defaults per tier, and TPM in proportion. */
const RPM_TIERS = { T1: 30, T2: 100, T3: 1000, T4: 3000, T5: 6000 };
const TPM_TIERS = { T1: 60000, T2: 200000, T3: 2000000, T4: 6000000, T5: 12000000 };

/** Extra seeders registered by other areas (e.g. compute adds a product and a cluster). */
export type Seeder = (ctx: Ctx) => Promise<void>;

/** Seeders every first start runs, after the first team exists. */
export const DEFAULT_SEEDERS: Seeder[] = [seedCompute];

/**
 * Seed an empty store once. Returns the credentials on the run that seeded, null later.
 * All of it is one transaction: a start that dies halfway (a kill, a seeder that fails)
 * leaves nothing, and the next start seeds; the token claimed first would otherwise mark
 * the store seeded forever, without its team or catalogue. Safe when several replicas
 * start at once: only the one that claims the token key seeds (the others wait on that
 * key until it commits, then find it taken).
 */
export async function bootstrap(ctx: Ctx, opts: { seedVoucherUnits: bigint; seeders?: Seeder[] }): Promise<Credentials | null> {
  // Nested transactions (a team, a posting) become savepoints of this one.
  return inTransaction(ctx, (tx) => seed({ ...ctx, db: tx as unknown as Db }, opts));
}

async function seed(ctx: Ctx, opts: { seedVoucherUnits: bigint; seeders?: Seeder[] }): Promise<Credentials | null> {
  const adminToken = newOperatorToken();
  if (!(await claimSetting(ctx.db, OPERATOR_TOKEN_KEY, sha256Hex(adminToken)))) return null;
  for (const m of SEED_MODELS) {
    await upsertModel(ctx, m);
    // Every seeded model, embeddings included, has both limits, so every model answer
    // carries OpenAI's x-ratelimit-*-requests and -tokens headers.
    await upsertQuotaDefinition(ctx, {
      model: m.id, modal: 'llm', quotaType: 'RPM', productType: 'Public Endpoint',
      defaultQuota: RPM_TIERS.T1, tiers: RPM_TIERS, adjustable: true,
    });
    await upsertQuotaDefinition(ctx, {
      model: m.id, modal: 'llm', quotaType: 'TPM', productType: 'Public Endpoint',
      defaultQuota: TPM_TIERS.T1, tiers: TPM_TIERS, adjustable: true,
    });
  }
  const { userId, ownerMemberId } = await createTeam(ctx, { name: 'default', ownerEmail: 'owner@gantry.local', tier: 'T1' });
  const { keyId, apiKey } = await createKey(ctx, ownerMemberId, 'default');
  if (opts.seedVoucherUnits > 0n) {
    await post(ctx, { teamId: userId, kind: 'voucher', amountMicro: unitsToMicro(opts.seedVoucherUnits), idempotencyKey: 'seed-voucher' });
  }
  for (const seed of [...DEFAULT_SEEDERS, ...(opts.seeders ?? [])]) await seed(ctx);
  return { adminToken, userId, ownerMemberId, keyId, apiKey };
}
