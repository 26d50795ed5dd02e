// One-time links sent by e-mail: confirm (a sign-up), reset (a forgotten password), invite.
// Rules (docs/security.md, "Accounts"):
// - a link's token is 32 random bytes, made by the mail job as it writes the message; only
//   its SHA-256 is stored, and each attempt to send replaces it (a token exists only in a
//   message);
// - a token works once: useLinkTx is one conditional UPDATE (unused, unexpired, this purpose),
//   so of two concurrent uses exactly one wins; done inside the transaction of what the link
//   does, it is undone with it when that fails;
// - short-lived: confirm, email and operator 24 h, reset 1 h, invite 7 days, from when the message was written;
// - bound to its purpose: a reset token confirms nothing, and every refusal is the same;
// - the link points at the console with the token in its fragment (`/console/#/reset?token=…`),
//   which browsers never send to a server: it is in no access log, no Referer.
import { randomBytes } from 'node:crypto';
import { sha256Hex, newId } from '../../lib/ids.ts';
import type { Tx } from '../../store/db.ts';
import * as q from '../../store/persons.ts';
import type { MailMessage } from '../mail/mailer.ts';
import type { Accounts } from './accounts.ts';
import type { LinkPurpose } from './codes.ts';
import { linkRefused } from './errors.ts';
import { ACCOUNTS_JOBS } from './jobs.ts';

export const LINK_TTL_MS: Record<LinkPurpose, number> = {
  confirm: 24 * 3_600_000,
  reset: 3_600_000,
  invite: 7 * 24 * 3_600_000,
  email: 24 * 3_600_000,
  operator: 24 * 3_600_000,
};

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface NewLink {
  purpose: LinkPurpose;
  email: string;
  passwordHash?: string | undefined;
  invitationId?: string | undefined;
  personId?: string | undefined;
}

/** A link to send, and the job that sends it, in the caller's transaction: both exist or neither. */
export async function createLinkTx(a: Accounts, tx: Tx, link: NewLink): Promise<string> {
  const now = a.ctx.clock.nowMs();
  const id = newId('link', now);
  await q.insertLink(tx, {
    id, purpose: link.purpose, email: link.email, passwordHash: link.passwordHash ?? null, invitationId: link.invitationId ?? null, personId: link.personId ?? null,
    createdAtMs: now, expiresAtMs: now + LINK_TTL_MS[link.purpose],
  });
  await a.ctx.jobs.enqueue(ACCOUNTS_JOBS.mail, { linkId: id }, { tx });
  return id;
}

function hashOf(token: string, purpose: LinkPurpose): string {
  if (!TOKEN.test(token)) throw linkRefused(purpose);
  return sha256Hex(token);
}

/** The unused, unexpired link of `purpose` a token names, read only (to check a password against it before it is used). */
export async function peekLink(a: Accounts, token: string, purpose: LinkPurpose): Promise<q.LinkRow> {
  const row = await q.findLinkByToken(a.ctx.db, hashOf(token, purpose));
  if (!row || row.purpose !== purpose || row.usedAtMs !== null || row.expiresAtMs <= a.ctx.clock.nowMs()) throw linkRefused(purpose);
  return row;
}

/** Use the link a token names, once: refused (the same for unknown, used, expired and another purpose's) unless this call is the one that used it. */
export async function useLinkTx(a: Accounts, tx: Tx, token: string, purpose: LinkPurpose): Promise<q.LinkRow> {
  const row = await q.useLink(tx, hashOf(token, purpose), purpose, a.ctx.clock.nowMs());
  if (!row) throw linkRefused(purpose);
  return row;
}

/**
 * The message a link goes out in (the accounts.mail job), with a new token; undefined when
 * there is nothing to send: the link was used or is gone, or it is a reset for an address
 * without an account (the request was answered as if there were one). A sign-up for an
 * address that has an account gets a message saying so instead of a link.
 */
export async function composeLinkMail(a: Accounts, linkId: string): Promise<MailMessage | undefined> {
  const link = await q.findLink(a.ctx.db, linkId);
  if (!link || link.usedAtMs !== null) return undefined;
  if (await tooManyFor(a, link)) return drop(a, linkId);
  const person = link.purpose === 'invite' ? undefined : await q.findPersonByEmail(a.ctx.db, link.email);
  if (link.purpose === 'reset' && !person) return drop(a, linkId);
  if ((link.purpose === 'confirm' || link.purpose === 'email') && person) {
    await q.markLinkSent(a.ctx.db, linkId, a.ctx.clock.nowMs());
    return alreadyRegistered(a, link.email);
  }
  const token = randomBytes(32).toString('base64url');
  const now = a.ctx.clock.nowMs();
  if (!(await q.setLinkToken(a.ctx.db, linkId, sha256Hex(token), now + LINK_TTL_MS[link.purpose as LinkPurpose]))) return undefined;
  // the console's page of the link (#/operator is the operator views' own)
  const url = `${a.baseUrl()}/console/#/${link.purpose === 'operator' ? 'operator-invite' : link.purpose}?token=${token}`;
  return link.purpose === 'invite' ? inviteMail(a, link, url) : purposeMail(link, url);
}

/**
 * Sign-up and reset requests are answered to anyone, so anyone could fill an inbox with them:
 * an address gets at most MAX_MAILS_PER_HOUR link messages an hour; more requests are answered
 * as ever and send nothing (the links already sent work). Invitations, sent by members, count
 * but are never held back. Counted as each message is written: messages written at the same
 * moment (the job runs 4 at once) may pass it together, by at most 3.
 */
export const MAX_MAILS_PER_HOUR = 5;

async function tooManyFor(a: Accounts, link: q.LinkRow): Promise<boolean> {
  if (link.purpose === 'invite' || link.purpose === 'operator' || link.tokenHash !== null) return false; // sent by members or the operator; or a retry of one already counted
  return (await q.countRecentLinkMails(a.ctx.db, link.email, a.ctx.clock.nowMs() - 3_600_000, link.id)) >= MAX_MAILS_PER_HOUR;
}

async function drop(a: Accounts, linkId: string): Promise<undefined> {
  await q.deleteLink(a.ctx.db, linkId);
  return undefined;
}

function purposeMail(link: q.LinkRow, url: string): MailMessage {
  if (link.purpose === 'operator') {
    return {
      to: link.email, subject: 'You are made an operator of Gantry',
      text: `The operator of this Gantry server made this address an operator account: its console's operator views, signed in as yourself.\n\nAccept here, signing in or choosing a password (the link works once, for 24 hours); two-factor sign-in is required before the operator views open:\n\n${url}\n\nIf you did not expect this, ignore this message: nothing changes.\n`,
    };
  }
  if (link.purpose === 'email') {
    return {
      to: link.email, subject: 'Confirm your new e-mail address for Gantry',
      text: `Someone (we hope you) asked to make this the address of their Gantry account.\n\nConfirm it here (the link works once, for 24 hours):\n\n${url}\n\nIf it was not you, ignore this message: nothing changes.\n`,
    };
  }
  if (link.purpose === 'reset') {
    return {
      to: link.email, subject: 'Reset your Gantry password',
      text: `Someone (we hope you) asked to reset the password of your Gantry account.\n\nChoose a new password here (the link works once, for one hour):\n\n${url}\n\nIf it was not you, ignore this message: your password stays as it is.\n`,
    };
  }
  return {
    to: link.email, subject: 'Confirm your e-mail address for Gantry',
    text: `Confirm your address to finish making your Gantry account (the link works once, for 24 hours):\n\n${url}\n\nIf you did not sign up, ignore this message: no account is made.\n`,
  };
}

function alreadyRegistered(a: Accounts, email: string): MailMessage {
  return {
    to: email, subject: 'You already have a Gantry account',
    text: `Someone (we hope you) tried to sign up with this address, or to move an account to it, and it has a Gantry account already.\n\nSign in at ${a.baseUrl()}/console/ or, if you forgot your password, reset it from there.\n`,
  };
}

async function inviteMail(a: Accounts, link: q.LinkRow, url: string): Promise<MailMessage | undefined> {
  const inv = link.invitationId ? await q.findInvitation(a.ctx.db, link.invitationId) : undefined;
  if (inv?.status !== 'pending') return undefined;
  const team = await q.findTeamName(a.ctx.db, inv.teamId);
  return {
    to: link.email, subject: `You are invited to ${team ?? inv.teamId} on Gantry`,
    text: `You are invited to join the team ${team ?? inv.teamId} on Gantry as ${inv.role}.\n\nAccept here, signing in or making an account (the link works once, for 7 days):\n\n${url}\n`,
  };
}

/** Links a day past their expiry, used or not, are removed (accounts.prune). */
export async function pruneLinks(a: Accounts): Promise<void> {
  await q.deleteOldLinks(a.ctx.db, a.ctx.clock.nowMs() - 86_400_000);
}
