import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { StorageView } from './schemas.ts';
import { getStorage, type StorageQuotas } from '../../../domain/storage/quotas.ts';

export default function getStorageRoute(app: App, s: { storage: StorageQuotas }): void {
  app.get('/openapi/v1/user/storage', {
    config: { family: 'account', auth: { kind: 'key', capability: 'readQuotas' } },
    schema: {
      tags: ['quotas'], summary: 'The team\'s stored files and media models against its storage quotas (Gantry\'s)', security: KeyBearer,
      response: { 200: StorageView, ...errors(401, 403) },
    },
  }, async (req) => getStorage(s.storage, principalOf(req).teamId));
}
