// Sets up a benchmark Gantry as an operator and a team owner would, with every check active:
// the model `bench/mock` served by the mock upstream, RPM and TPM quotas (set high), a top-up,
// a key budget and a member budget (all reserved at admission with the balance).
export interface BenchGantry {
  url: string;
  creds: { adminToken: string; userId: string; ownerMemberId: string; keyId: string; apiKey: string };
}

export async function api(url: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(url + path, {
    method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

export async function setupGantry(gantry: BenchGantry, mockUrl: string): Promise<void> {
  const { adminToken, userId, ownerMemberId, keyId, apiKey } = gantry.creds;
  await api(gantry.url, adminToken, 'POST', '/admin/v1/models', {
    id: 'bench/mock', title: 'Mock', contextSize: 8192, inputTokenPricePerM: 100, outputTokenPricePerM: 200, status: 'available', upstream: { url: `${mockUrl}/v1`, model: 'mock' },
  });
  const big = { T1: '1000000000', T2: '1000000000', T3: '1000000000', T4: '1000000000', T5: '1000000000' };
  for (const quotaType of ['RPM', 'TPM']) {
    await api(gantry.url, adminToken, 'POST', '/admin/v1/quotas', { model: 'bench/mock', modal: 'llm', quotaType, productType: 'Public Endpoint', defaultQuota: '1000000000', tiers: big, adjustable: true });
  }
  await api(gantry.url, adminToken, 'POST', `/admin/v1/teams/${userId}/topups`, { amount: 1_000_000_000, idempotencyKey: 'bench' });
  await api(gantry.url, apiKey, 'PUT', '/openapi/v1/user/team/key-budget', { member_id: ownerMemberId, key_id: keyId, budget_type: 'Recurring', budget_limit: 100_000_000, cycle: 'Monthly' });
  await api(gantry.url, apiKey, 'PUT', '/openapi/v1/user/team/budget', { member_id: ownerMemberId, budget_type: 'Recurring', budget_limit: 100_000_000, cycle: 'Monthly' });
}

/** What the ledger holds for the team: every answered request must be one event, and charged once (chargedRequests). */
export interface BenchUsage { events: number; ledgerCharges: number; chargedRequests: number; costMicro: string; chargedMicro: string }
export async function usageOf(gantry: BenchGantry): Promise<BenchUsage> {
  return api(gantry.url, gantry.creds.adminToken, 'GET', `/admin/v1/teams/${gantry.creds.userId}/usage`);
}

/** '' when every answered request is one event, charged once, and the charges add up to the events; else what is off. */
export function usageMismatch(u: BenchUsage, answered: number): string {
  // a Gantry from before grouped charges (a baseline checkout) has a charge per request and no totals of them
  const charged = u.chargedRequests ?? u.ledgerCharges;
  const chargedMicro = u.chargedMicro ?? u.costMicro;
  return u.events === answered && charged === answered && chargedMicro === u.costMicro ? ''
    : `MISMATCH: answered ${answered}, events ${u.events}, charged requests ${charged}, charged ${chargedMicro} µ against events' ${u.costMicro} µ`;
}
