// Notices: messages that tell a person something happened to their account and carry no link
// (nothing in them signs in, resets or confirms: whoever reads the old mailbox gains nothing).
// Sent by the accounts.notice job, enqueued in the transaction of what they tell.
import type { Tx } from '../../store/db.ts';
import type { MailMessage } from '../mail/mailer.ts';
import type { Accounts } from './accounts.ts';
import { ACCOUNTS_JOBS } from './jobs.ts';
import type { PayloadOfType } from '../jobs/job-type.ts';

export type Notice = PayloadOfType<typeof ACCOUNTS_JOBS.notice>;

/** The old address is told of a change of address once it is made (confirmed at the new one): sent if and only if the change commits. */
export async function noticeEmailChangedTx(a: Accounts, tx: Tx, oldEmail: string, newEmail: string): Promise<void> {
  await a.ctx.jobs.enqueue(ACCOUNTS_JOBS.notice, { kind: 'email-changed', to: oldEmail, newEmail, atMs: a.ctx.clock.nowMs() }, { tx });
}

/** `j•••@example.com`: enough for the owner to recognise their new address, not the whole of it for whoever reads the old mailbox. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return `${email.slice(0, Math.min(1, at))}•••${email.slice(at)}`;
}

export function composeNotice(a: Accounts, n: Notice): MailMessage {
  return {
    to: n.to, subject: 'The e-mail address of your Gantry account was changed',
    text: `The Gantry account that had this address now has the address ${maskEmail(n.newEmail)} (changed ${new Date(n.atMs).toISOString()}): this address no longer signs in to it.\n\n`
      + `If you made this change, there is nothing to do. If you did not, someone who knew your password changed it: ask your team's Owner or the operator of ${a.baseUrl()} to help you get the account back.\n`,
  };
}
