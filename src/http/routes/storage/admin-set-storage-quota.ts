import { Type } from 'typebox';
import { errors, Int32, OperatorBearer, UserIdParams } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { StorageView } from './schemas.ts';
import { setStorageOverrides, type StorageQuotas } from '../../../domain/storage/quotas.ts';

const Bytes = Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()], { description: 'bytes; null: back to the default' }));
const Count = Type.Optional(Type.Union([Int32({ minimum: 0 }), Type.Null()], { description: 'a count; null: back to the default' }));

export default function setStorageQuotaRoute(app: App, s: { storage: StorageQuotas }): void {
  app.route({
    method: ['PUT', 'POST'], // POST too: operators' scripts use either verb for a setting
    url: '/admin/v1/teams/:userId/storage-quota',
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Override a team\'s storage quotas (the fields given; null restores the default); answers its storage', security: OperatorBearer,
      params: UserIdParams,
      body: Type.Object({ filesMaxBytes: Bytes, filesMaxCount: Count, mediaMaxBytes: Bytes, mediaMaxCount: Count }, { additionalProperties: false }),
      response: { 200: StorageView, ...errors(400, 401, 404) },
    },
    handler: async (req) => setStorageOverrides(s.storage, req.params.userId, req.body),
  });
}
