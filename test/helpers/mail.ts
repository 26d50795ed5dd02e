// The mail port for tests where SMTP is not the point: it keeps every message it is given
// (and can refuse the next ones, as a server that is down would), and reads the one-time links
// out of them as a person would follow them.
import assert from 'node:assert/strict';
import type { Mailer, MailMessage } from '../../src/domain/mail/mailer.ts';

export class RecordingMailer implements Mailer {
  readonly kind = 'recording';
  readonly sent: MailMessage[] = [];
  /** how many of the next sends fail (a server refusing) */
  failing = 0;

  async send(message: MailMessage): Promise<void> {
    if (this.failing > 0) {
      this.failing--;
      throw new Error('451 4.3.0 the test server refused the message');
    }
    this.sent.push(message);
  }

  async close(): Promise<void> {}

  /** The messages to `to`, oldest first. */
  to(to: string): MailMessage[] {
    return this.sent.filter((m) => m.to === to);
  }
}

/** The token of the `purpose` link in a message's text (`…/console/#/<purpose>?token=…`). */
export function linkToken(text: string, purpose: 'confirm' | 'reset' | 'invite' | 'email' | 'operator-invite'): string {
  const m = new RegExp(`/console/#/${purpose}\\?token=([A-Za-z0-9_-]+)`).exec(text);
  assert.ok(m, `no ${purpose} link in:\n${text}`);
  return m[1]!;
}
