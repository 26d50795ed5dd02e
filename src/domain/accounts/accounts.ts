// The accounts area's context: persons, their one-time links and invitations act through the
// store (ctx), the mail port (sent only from the accounts.mail job: jobs.ts), who may sign up,
// and the public URL the links in messages point at.
import type { Config } from '../../config.ts';
import type { Ctx } from '../context.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import type { SignupMode } from '../../config.ts';
import { SCRYPT_DEFAULTS, type ScryptParams } from '../../lib/passwords.ts';

export interface Accounts {
  ctx: Ctx;
  mailer: Mailer;
  signup: SignupMode;
  /** GANTRY_PUBLIC_URL without its trailing slash: links in messages start with it */
  baseUrl: () => string;
  /** the parameters of new password hashes (lib/passwords.ts; GANTRY_PASSWORD_SCRYPT_LN) */
  scrypt: ScryptParams;
  /** seals TOTP secrets at rest (the data dir's key, GANTRY_SECRET_KEY) */
  secrets: SecretBox;
}

/** The accounts' context from the graph (the accounts area's entry of src/areas.ts). */
export function accountsContext(s: { ctx: Ctx; config: Config; mailer: Mailer; secrets: SecretBox }): Accounts {
  return {
    ctx: s.ctx, mailer: s.mailer, signup: s.config.accounts.signup, baseUrl: () => s.config.serverless.publicBaseUrl,
    scrypt: { ...SCRYPT_DEFAULTS, ln: s.config.accounts.scryptLn }, secrets: s.secrets,
  };
}
