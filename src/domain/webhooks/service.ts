// What webhook operations need (webhooksContext: the area's entry of src/areas.ts).
import type { SecretBox } from '../../lib/secret-box.ts';
import type { Ctx } from '../context.ts';
import type { Config } from '../../config.ts';
import type { Logger } from '../../lib/logger.ts';

/** The webhook settings of config.ts. */
export interface WebhookSettings {
  /** send to loopback, private and link-local addresses (GANTRY_WEBHOOK_ALLOW_PRIVATE=1; development, tests) */
  allowPrivate: boolean;
  /** one attempt's timeout (GANTRY_WEBHOOK_TIMEOUT_MS, default 5000 as compat.md's per-task webhooks) */
  timeoutMs: number;
  /** balance.low below this spendable balance, in interface units (GANTRY_WEBHOOK_BALANCE_LOW_UNITS) */
  balanceLowUnits: number;
}

export interface Webhooks {
  ctx: Ctx;
  /** seals the teams' signing secrets at rest (the data dir's key, GANTRY_SECRET_KEY) */
  box: SecretBox;
  settings: WebhookSettings;
  log: Logger;
}

/** The webhooks area's context from the graph: the teams' secrets sealed by the graph's box. */
export function webhooksContext(s: { ctx: Ctx; secrets: SecretBox; config: Config; log: Logger }): Webhooks {
  return { ctx: s.ctx, box: s.secrets, settings: s.config.webhooks, log: s.log.child({ component: 'webhooks' }) };
}
