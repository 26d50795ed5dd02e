// V8's collector on demand, for the few moments Gantry knows it just made a lot of garbage
// that V8 would otherwise keep for a long time: the module loading of a start (the type
// stripping of every .ts file leaves ~200 MB of garbage per thread, and an idle process
// never collects it), and the socket buffers of a long upload (read-buffers.ts). `gc` is
// reached at run time (`--expose-gc` set through node:v8, the function taken from a new
// context), so the process needs no command-line flag.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Gc = (opts?: { type?: 'minor' | 'major'; execution?: 'sync' | 'async' }) => void;

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

/** A major collection once the start is over (`afterMs`), not holding the process open. */
export function collectAfterStart(afterMs = 2000): void {
  setTimeout(() => collectNow('major'), afterMs).unref();
}
