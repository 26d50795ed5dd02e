// Bounds the memory a long upload holds in socket read buffers. Each read of a socket is a
// fresh 64 KB buffer outside the V8 heap; once consumed it is garbage, but V8 collects for
// external memory only after ~64 MB more of it, so a 200 MB upload would hold up to 64 MB
// of dead buffers at a time. A young-generation collection (a scavenge, ~1 ms) every few MB
// read frees them while they are still young.
import { collectNow } from './gc.ts';

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
    collectNow('minor');
  }
}
