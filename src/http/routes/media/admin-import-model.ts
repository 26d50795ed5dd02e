// POST /admin/v1/media/models: the operator imports a public record (multipart: the fields,
// then `file`); a record of the same sd_name_in_api is replaced. `gantry admin media import`
// calls it for each file of a folder or a JSON manifest.
import { errors, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { partsOf, withMultipart } from '../../multipart.ts';
import { MediaModelRecord, UPLOAD_FIELDS_DOC } from './schemas.ts';
import { importPublicMediaModel } from '../../../domain/media/catalogue.ts';
import type { Media } from '../../../domain/media/context.ts';

/** Operators import files of any size the blob store takes. */
const NO_LIMIT = Number.MAX_SAFE_INTEGER - 1;

export default function adminMediaImportModel(app: App, s: { media: Media }): void {
  withMultipart(app, NO_LIMIT, (child) => {
    child.post('/admin/v1/media/models', {
      config: { family: 'operator', auth: { kind: 'operator' } },
      bodyLimit: Number.MAX_SAFE_INTEGER,
      schema: {
        tags: ['operator'], summary: `Import a public media model (${UPLOAD_FIELDS_DOC}; source civitai | training | uploading)`,
        security: OperatorBearer, consumes: ['multipart/form-data'],
        response: { 200: MediaModelRecord, ...errors(400, 401, 409, 415) },
      },
    }, async (req) => importPublicMediaModel(s.media.catalogue, partsOf(req, NO_LIMIT)));
  });
}
