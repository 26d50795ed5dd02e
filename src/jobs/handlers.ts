// Every job type's handler, in one map typed by the catalogue (JobHandlers). Each area names
// its handlers (an `<area>Jobs` factory in its module here, listed in src/areas.ts); a
// catalogue entry no area handles does not compile. services.ts builds the map once the
// services the handlers need exist and registers it with the runner in one call
// (`jobs.handleAll`).
// Rules in ./README.md.
import type { Config } from '../config.ts';
import type { Ctx } from '../domain/context.ts';
import type { Compute } from '../domain/compute/compute.ts';
import type { ServerlessRuntime } from '../domain/serverless/reconciler.ts';
import type { Files } from '../domain/files/files.ts';
import type { Responses } from '../domain/responses/responses.ts';
import type { Batches } from '../domain/batches/service.ts';
import type { Webhooks } from '../domain/webhooks/service.ts';
import type { MediaTasks } from '../domain/media/tasks.ts';
import type { MediaCatalogue } from '../domain/media/catalogue.ts';
import type { Gateway } from '../gateway/gateway.ts';
import type { BlobStore } from '../store/blobs/index.ts';
import type { JobHandlers } from './runner.ts';
import type { Logger } from '../lib/logger.ts';

/** What the handlers work with (built in services.ts). */
export interface HandlerDeps {
  ctx: Ctx;
  config: Config;
  log: Logger;
  compute: Compute;
  serverlessRuntime: ServerlessRuntime;
  files: Files;
  responses: Responses;
  batches: Batches;
  gateway: Gateway;
  blobs: BlobStore;
  webhooks: Webhooks;
  media: { tasks: MediaTasks; catalogue: MediaCatalogue };
}

/** An area's jobs: the handlers of its catalogue entries (src/areas.ts names each area's). */
export type AreaJobs = (d: HandlerDeps) => Partial<JobHandlers>;

/**
 * The handlers of every area, in one map. Each job has one: a second is refused here, and
 * a job of the catalogue no area handles does not compile (src/areas.ts, `JobsHandled`).
 */
export function buildHandlers(areas: readonly { name: string; jobs?: AreaJobs | undefined }[], d: HandlerDeps): JobHandlers {
  const all: Partial<Record<string, unknown>> = {};
  for (const area of areas) {
    for (const [name, registration] of Object.entries(area.jobs?.(d) ?? {})) {
      if (name in all) throw new Error(`job type ${name} has two handlers`);
      all[name] = registration;
    }
  }
  return all as JobHandlers; // complete by src/areas.ts's type check, and again by the runner's handleAll
}
