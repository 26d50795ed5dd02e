// The media area's context: the model catalogue and the async tasks (each its own context,
// catalogue.ts and tasks.ts), handed to routes and jobs together as `media`, made from the
// graph by mediaContext (the area's entry of src/areas.ts).
import type { Config } from '../../config.ts';
import type { Blobs } from '../blobs/links.ts';
import type { Ctx } from '../context.ts';
import type { SpendAdmission } from '../spend/admission.ts';
import type { StorageQuotas } from '../storage/quotas.ts';
import type { MediaCatalogue } from './catalogue.ts';
import type { MediaTasks } from './tasks.ts';

export interface Media {
  catalogue: MediaCatalogue;
  tasks: MediaTasks;
}

/** Media tasks are admitted and held at creation, run as jobs, and ended (charged or released) once. */
export function mediaContext(s: { ctx: Ctx; config: Config; spend: SpendAdmission; blobs: Blobs; storage: StorageQuotas }): Media {
  const { media, webhooks } = s.config;
  return {
    catalogue: {
      ctx: s.ctx, blobs: s.blobs, storage: s.storage,
      opts: { downloadTtlS: media.linkTtlS, uploadMaxBytes: media.uploadMaxBytes, uploadStaleMs: media.uploadStaleMs },
    },
    tasks: { ctx: s.ctx, spend: s.spend, blobs: s.blobs, config: media, webhooksAllowPrivate: webhooks.allowPrivate },
  };
}
