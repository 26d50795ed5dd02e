// The mail port: how the domain sends an e-mail. Adapters (src/adapters/mail/): SMTP through
// nodemailer when the operator configured a server (GANTRY_SMTP_URL or GANTRY_SMTP_HOST), the
// server's log otherwise (a local developer reads the link there; never dropped). The domain
// sends only from a durable job (domain/accounts/jobs.ts): a `send` that throws is retried
// with backoff, and one that fails every attempt stays a failed job the operator sees
// (GET /admin/v1/jobs?state=failed).
export interface MailMessage {
  to: string;
  subject: string;
  /** plain text (links on lines of their own) */
  text: string;
}

export interface Mailer {
  /** `smtp` | `log` | what a test's adapter calls itself */
  readonly kind: string;
  /** Resolves once the server accepted the message; throws when it did not (the job retries). */
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}
