// Pixel work off the event loop: decoding a 2048² PNG or editing it takes hundreds of
// milliseconds of plain loops, which on the serving thread would stall every other request
// (model calls included). Each piece runs in a worker thread of its own (sim-worker.ts),
// started for it and ended with it: image operations are rare next to a thread's start.
import { Worker } from 'node:worker_threads';
import { type decodePng, PngError, type Rgba } from '../../lib/png-decode.ts';
import type * as edits from './sim-edits.ts';

type Work = typeof edits & { decodePng: typeof decodePng };

export function offThread<K extends keyof Work>(name: K, ...args: Parameters<Work[K]>): Promise<Rgba> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./sim-worker.ts', import.meta.url), { workerData: { name, args } });
    let done = false;
    worker.once('message', (m: { out?: Rgba; error?: { name: string; message: string } }) => {
      done = true;
      if (m.out) resolve(m.out);
      else reject(m.error?.name === 'PngError' ? new PngError(m.error.message) : new Error(m.error?.message));
    });
    worker.once('error', (err) => {
      done = true;
      reject(err);
    });
    worker.once('exit', (code) => {
      if (!done) reject(new Error(`the pixel worker for ${name} exited (${code}) without a result`));
    });
  });
}
