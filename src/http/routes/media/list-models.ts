// GET /v3/model: the media model catalogue, filtered and paged by cursor (domain/media/catalogue.ts).
// Dotted and bracketed keys are the same parameter (http/querystring.ts).
import { Type } from 'typebox';
import { listMediaModels, type CatalogueQuery } from '../../../domain/media/catalogue.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { catalogueQueryFields, MediaModelRecord, visibilityField } from './schemas.ts';
import type { Media } from '../../../domain/media/context.ts';

export default function listModels(app: App, s: { media: Media }): void {
  app.get('/v3/model', {
    config: { family: 'media', auth: { kind: 'key', capability: 'callModels' } },
    schema: {
      tags: ['media'], summary: 'Get the media model catalogue (public and the team\'s private records, paged by cursor)', security: KeyBearer,
      querystring: Type.Object({ ...visibilityField, ...catalogueQueryFields }),
      response: {
        200: Type.Object({ models: Type.Array(MediaModelRecord), pagination: Type.Object({ next_cursor: Type.String() }) }),
        ...errors(400, 401, 403),
      },
    },
  }, async (req) => listMediaModels(s.media.catalogue, principalOf(req), req.query as CatalogueQuery));
}
