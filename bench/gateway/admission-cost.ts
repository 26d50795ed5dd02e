// How long admission + counter settlement take without the store: the gateway's own cost
// per request (auth is not included; it is a cached map lookup). Run: node bench/gateway/admission-cost.ts
import { buildTestApp } from '../../test/helpers/app.ts';
import { as } from '../../test/helpers/http.ts';
import { worstCase } from '../../src/gateway/gateway.ts';

const t = await buildTestApp();
try {
  await as(t.app, t.creds.adminToken).put(`/admin/v1/teams/${t.creds.userId}/quotas`, { model: 'gantry/sim-chat-small', quotaType: 'RPM', currentQuota: 1000000000 });
  await as(t.app, t.creds.adminToken).put(`/admin/v1/teams/${t.creds.userId}/quotas`, { model: 'gantry/sim-chat-small', quotaType: 'TPM', currentQuota: 1000000000 });
  const p = { teamId: t.creds.userId, memberId: t.creds.ownerMemberId, keyId: t.creds.keyId, role: 'Owner' as const };
  const body = { model: 'gantry/sim-chat-small', messages: [{ role: 'user', content: 'Say hello in one short sentence.' }], max_tokens: 16 };
  const gw = t.services.gateway;
  const run = async (n: number) => {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const adm = await gw.admission.admit(p, 'chat.completions', body.model, () => worstCase('chat.completions', body, 32768));
      await gw.spend.settle(adm.reservation, 1000n, 20);
    }
    return ((performance.now() - t0) * 1000) / n;
  };
  await run(2000); // warm-up, loads caches
  process.stdout.write(`admission + counter settlement: ${(await run(20000)).toFixed(1)} µs per request (in-process counters)\n`);
} finally {
  await t.close();
}
