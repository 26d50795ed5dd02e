// The autoscaler's decisions, pure: from an endpoint's configuration, its live workers and
// the requests waiting for it, how many workers to add and which to drain or stop, with
// the reason as the endpoint log shows it ("scale out 1→3: 5 waiting > 2"). The reconciler
// (reconciler.ts) carries them out. Rules in ./README.md.

export interface ScaleWorker {
  id: string;
  /** pending | creating | pulling | starting | running | stopping | terminating */
  state: string;
  specVersion: number;
  healthy: boolean;
  draining: boolean;
  /** when it entered its state (for running: since when it serves) */
  stateSinceMs: number;
  inflight: number;
  /** when a request last started or ended on it (0: never) */
  lastBusyAtMs: number;
}

export interface ScaleInput {
  nowMs: number;
  /** endpoint state: stopped, failed and terminating want no worker */
  endpointState: string;
  specVersion: number;
  minNum: number;
  maxNum: number;
  /** seconds a worker may stay idle before it is drained */
  freeTimeout: number;
  maxConcurrent: number;
  policy: { type: 'queue' | 'concurrency'; value: number };
  workers: ScaleWorker[];
  waiting: number;
  oldestWaitingSinceMs: number | null;
}

export interface ScaleDecision {
  /** new workers of the current version */
  create: number;
  /** finish what they have, take nothing new, then stop */
  drain: string[];
  /** stop now: they serve nothing (not yet booted, or the endpoint wants none) */
  stop: string[];
  /** the workers the endpoint should have once this is done */
  desired: number;
  /** one line per decision, for the endpoint log */
  reasons: string[];
}

const BOOTING = new Set(['pending', 'creating', 'pulling', 'starting']);
const serves = (w: ScaleWorker) => w.state === 'running' && w.healthy && !w.draining;

export function decide(i: ScaleInput): ScaleDecision {
  const live = i.workers.filter((w) => !w.draining && w.state !== 'stopping' && w.state !== 'terminating');
  if (i.endpointState === 'stopped' || i.endpointState === 'failed' || i.endpointState === 'terminating') {
    return {
      create: 0, drain: [], stop: live.map((w) => w.id), desired: 0,
      reasons: live.length ? [`stop ${live.length} worker(s): the endpoint is ${i.endpointState}`] : [],
    };
  }
  const current = live.filter((w) => w.specVersion === i.specVersion);
  const old = live.filter((w) => w.specVersion !== i.specVersion);
  const booting = current.filter((w) => BOOTING.has(w.state)).length;
  // During a rolling update each new worker stands for an old one it will replace.
  const have = Math.max(current.length, old.filter(serves).length);
  const inflight = i.workers.reduce((s, w) => s + w.inflight, 0);
  const needed = Math.ceil((inflight + i.waiting) / Math.max(1, i.maxConcurrent));
  const reasons: string[] = [];

  // Scale out: the policy's signal, or a request waiting with no worker at all.
  let trigger: string | undefined;
  if (i.waiting > 0 && have === 0) trigger = `${i.waiting} waiting and no worker`;
  else if (i.policy.type === 'concurrency' && i.waiting > i.policy.value) trigger = `${i.waiting} waiting > ${i.policy.value}`;
  else if (i.policy.type === 'queue' && i.oldestWaitingSinceMs !== null && i.nowMs - i.oldestWaitingSinceMs > i.policy.value * 1000) {
    trigger = `oldest request waited ${((i.nowMs - i.oldestWaitingSinceMs) / 1000).toFixed(1)} s > ${i.policy.value} s`;
  }
  let target = have;
  if (trigger) {
    // Workers still booting count as capacity: add one more only when none is on its way.
    target = Math.max(have + (booting === 0 ? 1 : 0), needed);
  } else if (i.waiting === 0) {
    // Scale in: workers idle for freeTimeout drain, longest idle first, never below minNum.
    const idle = current.filter((w) => serves(w) && w.inflight === 0)
      .map((w) => ({ w, idleMs: i.nowMs - Math.max(w.lastBusyAtMs, w.stateSinceMs) }))
      .filter((x) => x.idleMs >= i.freeTimeout * 1000)
      .sort((a, b) => b.idleMs - a.idleMs);
    const canGo = Math.max(0, Math.min(idle.length, have - i.minNum));
    if (canGo > 0) {
      const going = idle.slice(0, canGo);
      reasons.push(`scale in ${have}→${have - canGo}: ${going.map((x) => `${x.w.id} idle ${Math.floor(x.idleMs / 1000)} s`).join(', ')} ≥ freeTimeout ${i.freeTimeout} s`);
      return { create: 0, drain: going.map((x) => x.w.id), stop: [], desired: have - canGo, reasons };
    }
  }
  const clamped = Math.min(i.maxNum, Math.max(i.minNum, target));
  if (clamped > have) {
    reasons.push(trigger ? `scale out ${have}→${clamped}: ${trigger}` : `scale out ${have}→${clamped}: minNum is ${i.minNum}`);
  }
  // (Fewer than `have` never happens here: maxNum and minNum change only by an update, which
  // bumps the version, and old-version workers are replaced by the rolling rule below.)

  // Rolling update: new-version workers up to the target first; an old one drains for each
  // new one serving beyond the target, so serving capacity never drops below it.
  const create = Math.max(0, clamped - current.length);
  const stop = old.filter((w) => !serves(w)).map((w) => w.id);
  const oldServing = old.filter(serves);
  const currentServing = current.filter(serves).length;
  const drainOld = Math.min(oldServing.length, Math.max(0, oldServing.length + currentServing - clamped));
  const drain = oldServing.slice(0, drainOld).map((w) => w.id);
  if (old.length && (drain.length || stop.length || create)) {
    reasons.push(`rolling update to version ${i.specVersion}: ${create} new, ${drain.length + stop.length} of an older version going`);
  }
  return { create, drain, stop, desired: clamped, reasons };
}
