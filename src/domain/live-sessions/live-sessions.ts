// Live sessions that depend on a principal (issue 40): the web terminal, and SSH sessions
// (issue 42, gateway/ssh: their owner an SSH key, read again by the session's own `reread`). A session is opened for a caller (a team, a member, a key) after checks that hold
// at that moment, and then lives for minutes or hours; a call with the key is refused as soon
// as the key is revoked, its member disabled or demoted, or its team suspended, and a session
// must end as soon, too. So every session is registered here with its caller and the rule it
// lives by (`mayKeep`, a role rule); each key.changed, member.changed and team.changed that
// concerns a session makes this replica read the caller again from the store (past the key
// cache, KeyAuthenticator.current) and end the session, saying why, when it may no longer be
// kept. Changes reach every replica (PostgreSQL LISTEN/NOTIFY, domain/changes.ts), and a
// reconnect, after which some may have been missed, checks every session again; a caller that
// cannot be read (the store away) ends its session: fail closed.
// The same registry bounds how many sessions are open at once (limits per subject: an
// instance's terminals, a team's), counted on this replica, taken before any check that reads
// the store and given back when the session ends.
import { AppError } from '../../lib/errors.ts';
import type { Ctx } from '../context.ts';
import type { KeyAuthenticator } from '../keys/authenticator.ts';
import { keyRefused } from '../keys/errors.ts';
import type { Principal } from '../roles.ts';
import { callerUnchecked, tooManySessions } from './errors.ts';

/** A subject a session takes a place of (its instance, its team), and the most it may hold at once. */
export interface SessionLimit {
  /** what is counted, e.g. `terminal:instance:<id>` */
  subject: string;
  max: number;
  /** the rule the refusal names (`terminals_per_instance`) */
  rule: string;
  /** the refusal's sentence */
  message: string;
}

export interface SessionSpec {
  /**
   * who opened it (a ticket's or a key's team, member and key): read again from the store on
   * each change. An SSH session's `keyId` is its SSH key's id (sshkey.changed concerns it).
   */
  owner: Pick<Principal, 'teamId' | 'memberId' | 'keyId'>;
  /**
   * who the owner is now, when it is not an API key (an SSH key: domain/keys/ssh-keys.ts
   * sshKeyHolder); default: the API key `owner.keyId` (KeyAuthenticator.current)
   */
  reread?: () => Promise<Principal>;
  limits: SessionLimit[];
  /** throws the refusal when the caller, as the store says now, may not keep the session (its role) */
  mayKeep(now: Principal): void;
}

/** An open session: who ends it when its caller may no longer keep it, and its places, given back once. */
export class LiveSession {
  readonly spec: SessionSpec;
  private readonly released: (s: LiveSession) => void;
  private ender: ((why: AppError) => void) | undefined;
  private withdrawn: AppError | undefined;
  private done = false;

  constructor(spec: SessionSpec, released: (s: LiveSession) => void) {
    this.spec = spec;
    this.released = released;
  }

  /** Who ends the session (its transport); called at once if the caller lost it already. */
  bind(end: (why: AppError) => void): void {
    this.ender = end;
    if (this.withdrawn) end(this.withdrawn);
  }

  /** The caller may no longer keep it: end it (or, before it is bound, as soon as it is). */
  withdraw(why: AppError): void {
    if (this.done || this.withdrawn) return;
    this.withdrawn = why;
    this.ender?.(why);
  }

  /** The session ended, whatever ended it: its places are free, nothing watches it any more. Idempotent. */
  release(): void {
    if (this.done) return;
    this.done = true;
    this.released(this);
  }
}

export class LiveSessions {
  private readonly keys: KeyAuthenticator;
  private readonly onError: (err: unknown) => void;
  private readonly open = new Set<LiveSession>();
  private readonly counts = new Map<string, number>();
  /** checks of sessions under way (tests wait for them: settled()) */
  private readonly checking = new Set<Promise<void>>();

  constructor(ctx: Ctx, keys: KeyAuthenticator, onError: (err: unknown) => void = () => {}) {
    this.keys = keys;
    this.onError = onError;
    ctx.changes.subscribe('key.changed', (c) => this.recheck((o) => o.keyId === c.keyId));
    ctx.changes.subscribe('member.changed', (c) => this.recheck((o) => o.memberId === c.memberId));
    ctx.changes.subscribe('team.changed', (c) => this.recheck((o) => o.teamId === c.teamId));
    ctx.changes.subscribe('sshkey.changed', (c) => this.recheck((o) => o.keyId === c.sshKeyId));
    ctx.changes.onResync(() => this.recheck(() => true));
  }

  /** Sessions holding a place of `subject` now. */
  count(subject: string): number {
    return this.counts.get(subject) ?? 0;
  }

  /** Registers a session, taking a place of each limit's subject, or throws the 429 of the first that is full. */
  start(spec: SessionSpec): LiveSession {
    const full = spec.limits.find((l) => this.count(l.subject) >= l.max);
    if (full) throw tooManySessions(full.rule, full.max, full.message);
    for (const l of spec.limits) this.counts.set(l.subject, this.count(l.subject) + 1);
    const s = new LiveSession(spec, (ended) => this.remove(ended));
    this.open.add(s);
    return s;
  }

  /** Resolves once the checks started by the changes so far are done. */
  async settled(): Promise<void> {
    while (this.checking.size) await Promise.all([...this.checking]);
  }

  private remove(s: LiveSession): void {
    if (!this.open.delete(s)) return;
    for (const l of s.spec.limits) {
      const left = this.count(l.subject) - 1;
      if (left > 0) this.counts.set(l.subject, left);
      else this.counts.delete(l.subject);
    }
  }

  private recheck(concerns: (owner: SessionSpec['owner']) => boolean): void {
    for (const s of this.open) {
      if (!concerns(s.spec.owner)) continue;
      const p = this.check(s).finally(() => this.checking.delete(p));
      this.checking.add(p);
    }
  }

  /** The caller as the store says now; the session is withdrawn when it may no longer be kept. */
  private async check(s: LiveSession): Promise<void> {
    const { owner } = s.spec;
    try {
      const now = s.spec.reread ? await s.spec.reread() : await this.keys.current(owner.keyId);
      // the key now another member's or team's is not the caller the session was opened for
      if (now.teamId !== owner.teamId || now.memberId !== owner.memberId) throw keyRefused('the API key is invalid or has been revoked');
      s.spec.mayKeep(now);
    } catch (err) {
      if (err instanceof AppError) return s.withdraw(err);
      this.onError(err);
      s.withdraw(callerUnchecked());
    }
  }
}
