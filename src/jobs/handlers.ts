// Every job type's handler, in one map typed by the catalogue (JobHandlers): a catalogue
// entry without a handler here does not compile. services.ts builds it once the services the
// handlers need exist and registers it with the runner in one call (`jobs.handleAll`).
// Rules in ./README.md.
import type { Config } from '../config.ts';
import type { Ctx } from '../domain/context.ts';
import type { Compute } from '../domain/compute/compute.ts';
import type { ServerlessRuntime } from '../domain/serverless/reconciler.ts';
import type { FileService } from '../domain/files/files.ts';
import type { ResponseStore } from '../domain/responses/responses.ts';
import type { Webhooks } from '../domain/webhooks/service.ts';
import type { MediaTasks } from '../domain/media/tasks.ts';
import type { MediaCatalogue } from '../domain/media/catalogue.ts';
import type { Gateway } from '../gateway/gateway.ts';
import type { BlobStore } from '../store/blobs/index.ts';
import type { JobHandlers } from './runner.ts';
import { computeReconcileHandler, type ReconcileLog } from './compute-reconciler.ts';
import { pruneJobsHandler } from './prune.ts';
import { serverlessReconcileHandler } from './serverless-reconciler.ts';
import { filesExpireHandler } from './files-expiry.ts';
import { responsesPruneHandler } from './responses-prune.ts';
import { batchHandlers } from './batches.ts';
import { webhookHandlers } from './webhooks.ts';
import { mediaSweepHandler, mediaTaskHandler } from './media-tasks.ts';

/** What the handlers work with (built in services.ts). */
export interface HandlerDeps {
  ctx: Ctx;
  config: Config;
  log: ReconcileLog;
  compute: Compute;
  serverlessRuntime: ServerlessRuntime;
  files: FileService;
  responses: ResponseStore;
  gateway: Gateway;
  blobs: BlobStore;
  webhooks: Webhooks;
  media: { tasks: MediaTasks; catalogue: MediaCatalogue };
}

export function buildHandlers(d: HandlerDeps): JobHandlers {
  const { config } = d;
  return {
    'compute.reconcile': { handler: computeReconcileHandler(d.compute, d.log), everyMs: config.reconcileIntervalMs },
    'serverless.reconcile': { handler: serverlessReconcileHandler(d.serverlessRuntime), everyMs: config.reconcileIntervalMs },
    'jobs.prune': { handler: pruneJobsHandler(d.ctx) },
    'files.expire': { handler: filesExpireHandler(d.files) },
    'responses.prune': { handler: responsesPruneHandler(d.responses) },
    ...batchHandlers({ ctx: d.ctx, gateway: d.gateway, files: d.files, blobs: d.blobs }, config.batches),
    ...webhookHandlers(d.webhooks, { watchIntervalMs: config.webhooks.watchIntervalMs }),
    'media.task': { handler: mediaTaskHandler({ tasks: d.media.tasks, blobs: d.blobs, config: config.media }), concurrency: config.media.taskConcurrency },
    'media.tasks.sweep': { handler: mediaSweepHandler(d.media.tasks, d.media.catalogue) },
  };
}
