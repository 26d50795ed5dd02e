// The mail port without an SMTP server (no GANTRY_SMTP_URL / GANTRY_SMTP_HOST): every message
// is written whole to the server's log at `warn`, so a developer running Gantry locally follows
// the link from there, and an operator who forgot to configure mail sees why nobody receives
// any. A message is never dropped silently (docs/configuration.md, "Mail").
import type { Logger } from '../../lib/logger.ts';
import type { Mailer, MailMessage } from '../../domain/mail/mailer.ts';

export class LogMailer implements Mailer {
  readonly kind = 'log';
  private readonly log: Logger;
  constructor(log: Logger) {
    this.log = log;
  }

  async send(message: MailMessage): Promise<void> {
    this.log.warn({ mail: { to: message.to, subject: message.subject, text: message.text } },
      'no SMTP server is configured (GANTRY_SMTP_URL): this e-mail is written here instead of being sent');
  }

  async close(): Promise<void> {}
}
