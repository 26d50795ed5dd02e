// The store's handle as every query takes it: the database, a transaction, or either. Apart
// from db.ts (which opens one) so that the database thread (pglite-worker.ts), which db.ts
// starts, can name the type without importing its starter.
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type * as schema from './schema.ts';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type DbOrTx = Db | Tx;
