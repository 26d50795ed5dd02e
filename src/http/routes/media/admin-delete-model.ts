// DELETE /admin/v1/media/models/{id}: the operator removes a public record and its file.
import { Type } from 'typebox';
import { errors, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { ModelIdParams } from './schemas.ts';
import { deletePublicMediaModel } from '../../../domain/media/catalogue.ts';
import type { Media } from '../../../domain/media/context.ts';

export default function adminMediaDeleteModel(app: App, s: { media: Media }): void {
  app.delete('/admin/v1/media/models/:id', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['operator'], summary: 'Delete a public media model', security: OperatorBearer,
      params: ModelIdParams,
      response: { 200: Type.Object({}), ...errors(400, 401, 404) },
    },
  }, async (req) => {
    await deletePublicMediaModel(s.media.catalogue, Number((req.params as { id: string }).id));
    return {};
  });
}
