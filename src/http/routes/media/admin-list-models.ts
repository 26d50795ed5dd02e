// GET /admin/v1/media/models: the operator's public records (what `gantry admin media import`
// and the demo put there), with the filters and cursor of GET /v3/model, each with its size and
// times. `gantry admin media list` pages through it.
import { Type } from 'typebox';
import { listPublicMediaModels, type CatalogueQuery } from '../../../domain/media/catalogue.ts';
import { errors, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { catalogueQueryFields, MediaModelRecord } from './schemas.ts';
import type { Media } from '../../../domain/media/context.ts';

export default function adminMediaListModels(app: App, s: { media: Media }): void {
  app.get('/admin/v1/media/models', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['operator'], summary: 'The public media models (the operator\'s imports), paged by cursor', security: OperatorBearer,
      querystring: Type.Object(catalogueQueryFields),
      response: {
        200: Type.Object({
          models: Type.Array(Type.Object({
            ...MediaModelRecord.properties,
            bytes: Type.Integer({ description: 'the file\'s size' }),
            created_at: Type.Integer({ description: 'Unix seconds: first imported' }),
            updated_at: Type.Integer({ description: 'Unix seconds: last imported (a re-import replaces the file)' }),
          })),
          pagination: Type.Object({ next_cursor: Type.String() }),
        }),
        ...errors(400, 401),
      },
    },
  }, async (req) => listPublicMediaModels(s.media.catalogue, req.query as CatalogueQuery));
}
