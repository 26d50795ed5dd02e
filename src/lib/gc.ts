// V8's collector on demand, for the few moments Gantry knows it just made a lot of garbage
// that V8 would otherwise keep for a long time: the module loading of a start (the type
// stripping of every .ts file leaves ~200 MB of garbage per thread, and an idle process
// never collects it), and the socket buffers of a long upload (read-buffers.ts). `gc` is
// reached at run time (`--expose-gc` set through node:v8, the function taken from a new
// context), so the process needs no command-line flag.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Gc = (opts?: { type?: 'minor' | 'major'; execution?: 'sync' | 'async'; flavor?: 'regular' | 'last-resort' }) => void;

let gc: Gc | null | undefined;

function collector(): Gc | null {
  if (gc === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as Gc;
    } catch {
      gc = null; // not available: V8 collects on its own schedule
    }
  }
  return gc;
}

/** A collection now: `minor` (the young generation, ~1 ms) or `major` (everything). */
export function collectNow(type: 'minor' | 'major'): void {
  collector()?.({ type });
}

/**
 * Once the start is over (`afterMs`), not holding the process open: a collection that also
 * gives back the memory V8 keeps pooled for later ('last-resort': several full passes, made
 * to reduce the footprint, what V8's own memory reducer does only after ~10 s of idleness).
 * A plain major collection here left an idle server at ~260 MB until that reducer ran, ~12 s
 * after the start; this one brings it to ~205 MB from the 3rd second on (bench/README.md).
 */
export function collectAfterStart(afterMs = 2000): void {
  // 65–170 ms once, on each thread that calls it (measured here), instead of ~10 s later
  setTimeout(() => collector()?.({ type: 'major', flavor: 'last-resort' }), afterMs).unref();
}
