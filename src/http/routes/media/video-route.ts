// The routes of the video operations the vendor's client calls: each answers the refusal of
// domain/media/video.ts (400 INVALID_REQUEST_BODY, metadata.operation), whatever the body.
import { Type } from 'typebox';
import type { VideoOp } from '../../../domain/media/codes.ts';
import { refuseVideo } from '../../../domain/media/video.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import type { App, RouteRegistrar } from '../../types.ts';

export function videoRoute(op: VideoOp): RouteRegistrar<unknown> {
  return (app: App) => {
    app.post(`/v3/async/${op}`, {
      config: { family: 'media', auth: { kind: 'key', capability: 'callModels' } },
      schema: {
        tags: ['media'], summary: `${op}: not served (video generation); refused with the reason`, security: KeyBearer,
        body: Type.Object({}, { description: 'the vendor\'s request; any body is refused' }),
        response: { ...errors(400, 401, 403) },
      },
    }, async () => refuseVideo(op));
  };
}
