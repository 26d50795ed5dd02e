import { errors, OperatorBearer, UserIdParams } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { StorageView } from './schemas.ts';
import { getTeamStorage, type StorageQuotas } from '../../../domain/storage/quotas.ts';

export default function getTeamStorageRoute(app: App, s: { storage: StorageQuotas }): void {
  app.get('/admin/v1/teams/:userId/storage', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'A team\'s stored files and media models against its storage quotas, and the overrides set for it', security: OperatorBearer,
      params: UserIdParams,
      response: { 200: StorageView, ...errors(401, 404) },
    },
  }, async (req) => getTeamStorage(s.storage, req.params.userId));
}
