// DELETE /v3/model/{id}: a team deletes one of its uploads (a public record, or another
// team's, is API_NOT_FOUND); its file goes with it.
import { Type } from 'typebox';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { ModelIdParams } from './schemas.ts';
import { deletePrivateMediaModel } from '../../../domain/media/catalogue.ts';
import type { Media } from '../../../domain/media/context.ts';

export default function deleteModel(app: App, s: { media: Media }): void {
  app.delete('/v3/model/:id', {
    config: { family: 'media', auth: { kind: 'key', capability: 'callModels' } },
    schema: {
      tags: ['media'], summary: 'Delete a private model the team uploaded', security: KeyBearer,
      params: ModelIdParams,
      response: { 200: Type.Object({}), ...errors(400, 401, 403, 404) },
    },
  }, async (req) => {
    await deletePrivateMediaModel(s.media.catalogue, principalOf(req), Number((req.params as { id: string }).id));
    return {};
  });
}
