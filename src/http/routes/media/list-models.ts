// GET /v3/model: the media model catalogue, filtered and paged by cursor (domain/media/catalogue.ts).
// Dotted and bracketed keys are the same parameter (http/querystring.ts).
import { Type } from 'typebox';
import type { CatalogueQuery } from '../../../domain/media/catalogue.ts';
import { MODEL_SOURCES, MODEL_TYPES } from '../../../domain/media/codes.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App, type Services } from '../../types.ts';
import { MediaModelRecord } from './schemas.ts';

const param = (description: string, maxLength = 64) => Type.Optional(Type.String({ maxLength, description }));

export default function listModels(app: App, s: Services): void {
  app.get('/v3/model', {
    config: { family: 'media', auth: { kind: 'key', capability: 'callModels' } },
    schema: {
      tags: ['media'], summary: 'Get the media model catalogue (public and the team\'s private records, paged by cursor)', security: KeyBearer,
      querystring: Type.Object({
        'filter.visibility': param('public | private; all when unset'),
        'filter.source': param(`${MODEL_SOURCES.join(' | ')} (comma-separated for several)`),
        'filter.types': param(`${MODEL_TYPES.join(' | ')} (comma-separated for several)`, 128),
        'filter.is_sdxl': param('true: only SDXL; false: no SDXL; unset: both'),
        'filter.query': param('searched in sd_name, name and tags', 255),
        'filter.is_inpainting': param('true: only inpainting checkpoints'),
        'pagination.limit': param('records per page, (0, 100]; default 20'),
        'pagination.cursor': param('next_cursor of the previous page; empty: from the beginning'),
      }),
      response: {
        200: Type.Object({ models: Type.Array(MediaModelRecord), pagination: Type.Object({ next_cursor: Type.String() }) }),
        ...errors(400, 401, 403),
      },
    },
  }, async (req) => s.media.catalogue.list(principalOf(req), req.query as CatalogueQuery));
}
