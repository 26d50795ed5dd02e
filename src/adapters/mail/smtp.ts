// The mail port over SMTP (nodemailer): one pooled transport for the process, TLS as the
// operator chose (GANTRY_SMTP_TLS: `tls` from the first byte, `starttls` required, or `off` for
// a relay on the same machine). A message the server does not accept throws, and the job that
// sends it retries (domain/accounts/jobs.ts). nodemailer is loaded at the first message: a
// start that sends none does not load it (test/lazy-modules.test.ts).
import type { Transporter } from 'nodemailer';
import type { MailConfig } from '../../config.ts';
import type { Mailer, MailMessage } from '../../domain/mail/mailer.ts';

export class SmtpMailer implements Mailer {
  readonly kind = 'smtp';
  private readonly config: NonNullable<MailConfig['smtp']>;
  private readonly from: string;
  private transport: Promise<Transporter> | undefined;

  constructor(config: NonNullable<MailConfig['smtp']>, from: string) {
    this.config = config;
    this.from = from;
  }

  private open(): Promise<Transporter> {
    const c = this.config;
    this.transport ??= import('nodemailer').then(({ createTransport }) => createTransport({
      host: c.host,
      port: c.port,
      secure: c.tls === 'tls',
      requireTLS: c.tls === 'starttls',
      ignoreTLS: c.tls === 'off',
      ...(c.user ? { auth: { user: c.user, pass: c.password ?? '' } } : {}),
      // a server that does not answer is an attempt that failed, not a job that hangs
      connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000,
      pool: true, maxConnections: 2,
    }));
    return this.transport;
  }

  async send(message: MailMessage): Promise<void> {
    const transport = await this.open();
    await transport.sendMail({ from: this.from, to: message.to, subject: message.subject, text: message.text });
  }

  async close(): Promise<void> {
    if (this.transport) (await this.transport).close();
  }
}
