// Bounds the memory a long upload holds in socket read buffers. Each read of a socket is a
// fresh 64 KB buffer outside the V8 heap; once consumed it is garbage, but V8 collects for
// external memory only after ~64 MB more of it, so a 200 MB upload would hold up to 64 MB
// of dead buffers at a time. A young-generation collection (a scavenge, ~1 ms) every few MB
// read frees them while they are still young. V8's `gc` is reached at run time
// (`--expose-gc` set through node:v8, the function taken from a new context), so the process
// needs no command-line flag.
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
      gc = null; // not available: the buffers are freed by V8's own schedule
    }
  }
  return gc;
}

/** Collects the young generation after every `everyBytes` read (shared by all uploads of the process). */
export class ReadBufferReclaimer {
  private since = 0;
  private readonly everyBytes: number;

  constructor(everyBytes = 8 * 1024 * 1024) {
    this.everyBytes = everyBytes;
  }

  read(bytes: number): void {
    this.since += bytes;
    if (this.since < this.everyBytes) return;
    this.since = 0;
    collector()?.({ type: 'minor' });
  }
}
