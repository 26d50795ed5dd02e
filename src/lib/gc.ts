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
 * A collection that also gives memory back, once the start is over (`afterMs`), not holding
 * the process open. V8's "last resort" flavour (collections until nothing more is freed, with
 * the young generation shrunk and the old one compacted) rather than a plain major one: the
 * young generations the start grew (128 MB on this thread, 32 MB on the database's) otherwise
 * stay until V8's memory reducer notices the process is idle, ~20-30 s later: idle RSS 8 s
 * after a restart ~430 -> ~220 MB, and a few MB less at 30 s (bench/README.md). It pauses
 * the thread 50-150 ms once instead of 20-40 ms. A V8 without the option runs a major one.
 */
export function collectAfterStart(afterMs = 2000): void {
  setTimeout(() => collector()?.({ type: 'major', flavor: 'last-resort' }), afterMs).unref();
}
