// A time limit on a reply that is fair to a busy process. A plain setTimeout fires in the
// timers phase of the event loop, before the poll phase reads sockets: after the loop was
// held for longer than the limit (a long GC, a burst of requests on a loaded machine), a
// reply that arrived long ago is still unread in the socket when the timer fires, and the
// dependency would be called down although it answered in time. Here the timer only looks
// once more after the next poll phase (setImmediate runs right after it), so what arrived
// meanwhile wins; only a reply that is really missing runs out the limit.

export class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
  constructor(ms: number) {
    super(`no reply within ${ms} ms`);
  }
}

/** `p`, or a DeadlineExceeded rejection if it has not settled `ms` after this call (see above). */
export function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      setImmediate(() => {
        if (settled) return;
        settled = true;
        reject(new DeadlineExceeded(ms));
      });
    }, ms);
    p.then(
      (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
