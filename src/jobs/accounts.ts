// The handlers of accounts.mail (a one-time link's message through the mail port: composed
// with a new token at each attempt, domain/accounts/links.ts), accounts.notice (a message
// without a link: notices.ts) and accounts.prune.
import type { Accounts } from '../domain/accounts/accounts.ts';
import { ACCOUNTS_JOBS } from '../domain/accounts/jobs.ts';
import { composeLinkMail, pruneLinks } from '../domain/accounts/links.ts';
import { composeNotice } from '../domain/accounts/notices.ts';
import { handles } from './handlers.ts';

/** The accounts area's jobs (an entry of src/areas.ts). */
export const accountsJobs = [
  handles(ACCOUNTS_JOBS.mail, (s: { accounts: Accounts }) => ({
    handler: async (job) => {
      const message = await composeLinkMail(s.accounts, job.payload.linkId);
      if (message) await s.accounts.mailer.send(message); // throws when the server refuses: retried with backoff
    },
  })),
  handles(ACCOUNTS_JOBS.notice, (s: { accounts: Accounts }) => ({
    handler: (job) => s.accounts.mailer.send(composeNotice(s.accounts, job.payload)),
  })),
  handles(ACCOUNTS_JOBS.prune, (s: { accounts: Accounts }) => ({ handler: () => pruneLinks(s.accounts) })),
];
