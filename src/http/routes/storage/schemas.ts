// What a team stores against its storage quotas (domain/storage): the team's read and the operator's.
import { Type } from 'typebox';

const Use = (what: string) => Type.Object({
  usedBytes: Type.Integer({ description: `bytes of the team's ${what} (uploads in progress by their declared size)` }),
  usedCount: Type.Integer({ description: `the team's ${what}, uploads in progress included` }),
  maxBytes: Type.Integer({ description: 'the quota in force, bytes' }),
  maxCount: Type.Integer({ description: 'the quota in force, a count' }),
});

const Override = Type.Union([Type.Integer(), Type.Null()], { description: 'the operator\'s value for this team; null: the configured default' });

export const StorageView = Type.Object({
  files: Use('files (uploads and batch outputs)'),
  media: Use('uploaded media models'),
  overrides: Type.Object({ filesMaxBytes: Override, filesMaxCount: Override, mediaMaxBytes: Override, mediaMaxCount: Override }),
});
