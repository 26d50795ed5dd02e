// The body of a pixel worker (pixel-pool.ts): runs one of sim-edits.ts's operations, or the
// PNG decoder, on each job it is given and posts the result back, its bytes transferred,
// not copied. A failure is posted as its name, message and rule (a PngError stays
// recognisable, with the rule its refusal names); nothing a job does ends the thread.
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { decodePng, PngError } from '../../lib/png-decode.ts';
import * as edits from './sim-edits.ts';

export interface PixelJob {
  id: number;
  name: string;
  args: unknown[];
}

export type PixelReply = { id: number; out: { width: number; height: number; data: Uint8Array } }
  | { id: number; error: { name: string; message: string; rule?: string | undefined } };

const work = { ...edits, decodePng } as Record<string, (...a: unknown[]) => { width: number; height: number; data: Uint8Array }>;

// Linux keeps a nice value per thread: pixel work yields the cores to the event loop's thread
// when both want one (an image may wait; the model requests should not).
try {
  setPriority(10);
} catch { /* not permitted here: work at the usual priority */ }

parentPort!.on('message', (job: PixelJob) => {
  let reply: PixelReply;
  try {
    const fn = work[job.name];
    if (!fn) throw new Error(`no pixel operation ${job.name}`);
    reply = { id: job.id, out: fn(...job.args) };
  } catch (err) {
    const e = err as Error;
    reply = { id: job.id, error: { name: e.name, message: e.message, rule: e instanceof PngError ? e.rule : undefined } };
  }
  parentPort!.postMessage(reply, 'out' in reply ? [reply.out.data.buffer as ArrayBuffer] : []);
});
