// The routes of the image edits (POST /v3/<edit>, domain/media/image-edits.ts): the vendor's
// flat body of base64 images (and replace-background's prompt), answered with the edited
// image; one definition, each edit's file naming its fields.
import { Type, type TSchema } from 'typebox';
import type { ImageEdit } from '../../../domain/media/codes.ts';
import type { ImageEditBody } from '../../../domain/media/image-edits.ts';
import { runImageEdit, type TaskExtra } from '../../../domain/media/tasks.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App, type RouteRegistrar } from '../../types.ts';
import { imageRouteOptions } from './image-task-route.ts';
import { EditExtra, ImageEditAnswer } from './schemas.ts';
import type { Media } from '../../../domain/media/context.ts';
import type { Config } from '../../../config.ts';

export function imageEditRoute(op: ImageEdit, summary: string, fields: Record<string, TSchema>): RouteRegistrar<{ media: Media; config: Config }> {
  return (app: App, s) => {
    app.post(`/v3/${op}`, {
      ...imageRouteOptions(s),
      schema: {
        tags: ['media'], summary: `${summary}; answered with the image (base64 PNG), recorded as a task`, security: KeyBearer,
        body: Type.Object({ ...fields, extra: EditExtra }),
        response: { 200: ImageEditAnswer, ...errors(400, 401, 403) },
      },
    }, async (req) => runImageEdit(s.media.tasks, principalOf(req), op, req.body as ImageEditBody & { extra?: TaskExtra }));
  };
}
