// What webhook operations need (webhooksContext: the area's entry of src/areas.ts).
import type { SecretBox } from '../../lib/secret-box.ts';
import type { Ctx } from '../context.ts';
import type { Config } from '../../config.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Counters } from '../spend/counters.ts';

/** The webhook settings of config.ts. */
export interface WebhookSettings {
  /** send to loopback, private and link-local addresses (GANTRY_WEBHOOK_ALLOW_PRIVATE=1; development, tests) */
  allowPrivate: boolean;
  /** one attempt's timeout (GANTRY_WEBHOOK_TIMEOUT_MS, default 5000 as compat.md's per-task webhooks) */
  timeoutMs: number;
  /** balance.low below this spendable balance, in interface units (GANTRY_WEBHOOK_BALANCE_LOW_UNITS) */
  balanceLowUnits: number;
  /** sends a team may ask for (test sends, manual retries) per endpoint and per team, a minute (throttle.ts; 0: no limit) */
  sendsPerEndpointPerMinute: number;
  sendsPerTeamPerMinute: number;
}

export interface Webhooks {
  ctx: Ctx;
  /** seals the teams' signing secrets at rest (the data dir's key, GANTRY_SECRET_KEY) */
  box: SecretBox;
  settings: WebhookSettings;
  /** the shared counters (their rate windows throttle the sends a team asks for) */
  counters: Counters;
  log: Logger;
}

/** The webhooks area's context from the graph: the teams' secrets sealed by the graph's box, the shared counters for the send throttle. */
export function webhooksContext(s: { ctx: Ctx; secrets: SecretBox; config: Config; log: Logger; spend: { counters: Counters } }): Webhooks {
  return { ctx: s.ctx, box: s.secrets, settings: s.config.webhooks, counters: s.spend.counters, log: s.log.child({ component: 'webhooks' }) };
}
