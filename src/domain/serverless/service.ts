// What the serverless management operations need (serverlessContext: the area's entry of src/areas.ts).
import type { Ctx } from '../context.ts';
import type { SpendAdmission } from '../spend/admission.ts';
import type { Config } from '../../config.ts';

/** The parts of the serverless configuration (config.ts) the management API reads. */
export interface ServerlessSettings {
  /** base of endpoint URLs and of log URLs: `{publicBaseUrl}/serverless/{appName}` */
  publicBaseUrl: string;
  /** host-based endpoint URLs `{scheme}://{appName}.{domain}` when set */
  domain?: string | undefined;
  /** seconds of GPU time per initial worker a create must be able to pay (admission) */
  holdSeconds: number;
}

export interface Serverless {
  ctx: Ctx;
  /** the one admission for spend: a create must afford its first workers' hold */
  spend: SpendAdmission;
  settings: ServerlessSettings;
}

/** The serverless management API's context from the graph. */
export function serverlessContext(s: { ctx: Ctx; spend: SpendAdmission; config: Config }): Serverless {
  return { ctx: s.ctx, spend: s.spend, settings: s.config.serverless };
}
