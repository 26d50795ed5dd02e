// The accounts area's job types (src/jobs/accounts.ts): the e-mail a one-time link goes out
// in, a notice without a link, and the removal of links nobody can use any more.
import { Type } from 'typebox';
import { defineJob, NoPayload } from '../jobs/job-type.ts';

export const ACCOUNTS_JOBS = {
  /**
   * The message of one link (confirm, reset, invite: links.ts composeLinkMail), through the
   * mail port. An attempt per start, 10 s × 3^n apart up to an hour, 8 attempts over about
   * 3 hours; then the job stays failed with the server's last answer, which the operator sees
   * (GET /admin/v1/jobs?state=failed). Each attempt puts a new token in its message (the one
   * before it stops working): a token exists only in a message.
   */
  mail: defineJob({
    name: 'accounts.mail', payload: Type.Object({ linkId: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
    singleton: true, singletonKey: (p) => p.linkId, concurrency: 4, leaseMs: 120_000,
    retry: { maxAttempts: 8, backoff: { firstMs: 10_000, factor: 3, maxMs: 3_600_000 } },
  }),
  /**
   * A notice without a link (notices.ts): the old address told that the account's address
   * changed. Retried as accounts.mail is; the payload names the person and both addresses, no
   * secret.
   */
  notice: defineJob({
    name: 'accounts.notice',
    payload: Type.Object({ kind: Type.Literal('email-changed'), to: Type.String({ minLength: 3 }), newEmail: Type.String({ minLength: 3 }), atMs: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
    concurrency: 4, leaseMs: 120_000,
    retry: { maxAttempts: 8, backoff: { firstMs: 10_000, factor: 3, maxMs: 3_600_000 } },
  }),
  /** Deletes links a day past their expiry (used or not): the table stays the size of the live ones. */
  prune: defineJob({
    name: 'accounts.prune', payload: NoPayload, everyMs: 3_600_000, concurrency: 1, leaseMs: 60_000,
    retry: { maxAttempts: 1, backoff: { firstMs: 60_000, factor: 2, maxMs: 3_600_000 } },
  }),
};
