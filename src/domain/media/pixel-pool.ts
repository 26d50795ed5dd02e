// Pixel work off the event loop: decoding a 2048² PNG or editing it takes hundreds of
// milliseconds of plain loops, which on the serving thread would stall every other request
// (model calls included). It runs on a small pool of worker threads (pixel-worker.ts), one
// piece at a time each, the rest waiting in order here:
//  - at most PIXEL_POOL.size pieces run at once, whoever sends them, so the typed arrays of
//    image work (bounded per piece by the decoder: lib/png-decode.ts) are bounded for the
//    process too, and at most that many cores are taken from the requests;
//  - each worker has V8 limits (PIXEL_POOL.resourceLimits): JavaScript that outgrows them
//    ends that worker alone (ERR_WORKER_OUT_OF_MEMORY), failing the piece it held; the pieces
//    waiting go to a new worker. Typed arrays live outside V8's heap: those are the decoder's
//    bounds, not these;
//  - workers start when work comes and end after PIXEL_POOL.idleMs without any, and never
//    keep the process alive while idle.
import { type ResourceLimits, Worker } from 'node:worker_threads';
import { type decodePng, PngError, type PngRule, type Rgba } from '../../lib/png-decode.ts';
import type * as edits from './sim-edits.ts';
import type { PixelJob, PixelReply } from './pixel-worker.ts';

type Work = typeof edits & { decodePng: typeof decodePng };

export const PIXEL_POOL = {
  size: 2,
  idleMs: 30_000,
  /** V8 heap of a worker: a piece's own objects are small (its pixels are typed arrays) */
  resourceLimits: { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 } satisfies ResourceLimits,
} as const;

interface Job {
  name: string;
  args: unknown[];
  transfer: ArrayBuffer[];
  resolve: (out: Rgba) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  job: (Job & { id: number }) | undefined;
  idle: NodeJS.Timeout | undefined;
}

export interface PixelPoolOptions {
  size: number;
  idleMs: number;
  resourceLimits: ResourceLimits;
  /** the worker's module (tests give one of their own) */
  script?: URL;
}

export class PixelPool {
  private readonly opts: PixelPoolOptions;
  private readonly script: URL;
  private readonly slots: Slot[] = [];
  private readonly waiting: Job[] = [];
  private nextId = 1;
  /** pieces handed to a worker so far */
  private started = 0;

  constructor(opts: PixelPoolOptions) {
    this.opts = opts;
    this.script = opts.script ?? new URL('./pixel-worker.ts', import.meta.url);
  }

  /** Run `name` on `args` on a worker; `transfer`: buffers of `args` to move there instead of copying (unusable here afterwards). */
  run(name: string, args: unknown[], transfer: ArrayBuffer[] = []): Promise<Rgba> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ name, args, transfer, resolve, reject });
      this.next();
    });
  }

  /** Workers running now (started and not ended), and the pieces handed to one so far. */
  stats(): { workers: number; jobs: number } {
    return { workers: this.slots.length, jobs: this.started };
  }

  private next(): void {
    while (this.waiting.length > 0) {
      const slot = this.slots.find((s) => !s.job) ?? (this.slots.length < this.opts.size ? this.start() : undefined);
      if (!slot) return;
      const job = { ...this.waiting.shift()!, id: this.nextId++ };
      this.started++;
      if (slot.idle) clearTimeout(slot.idle);
      slot.idle = undefined;
      slot.job = job;
      slot.worker.ref();
      const msg: PixelJob = { id: job.id, name: job.name, args: job.args };
      slot.worker.postMessage(msg, job.transfer);
    }
  }

  private start(): Slot {
    const worker = new Worker(this.script, { resourceLimits: this.opts.resourceLimits });
    const slot: Slot = { worker, job: undefined, idle: undefined };
    this.slots.push(slot);
    worker.on('message', (m: PixelReply) => this.answered(slot, m));
    worker.on('error', (e) => this.died(slot, e));
    worker.on('exit', (code) => this.died(slot, new Error(`the pixel worker exited (${code})`)));
    return slot;
  }

  private answered(slot: Slot, m: PixelReply): void {
    const job = slot.job;
    if (!job || job.id !== m.id) return;
    slot.job = undefined;
    if ('out' in m) job.resolve(m.out);
    else job.reject(m.error.name === 'PngError' ? new PngError(m.error.rule as PngRule, m.error.message) : new Error(m.error.message));
    this.rest(slot);
    this.next();
  }

  /** An idle worker lets the process exit, and ends after idleMs. */
  private rest(slot: Slot): void {
    if (slot.job) return;
    slot.worker.unref();
    slot.idle = setTimeout(() => void slot.worker.terminate(), this.opts.idleMs);
    slot.idle.unref();
  }

  /** Told once per worker ('error' is followed by 'exit'): the piece it held fails, the others go on. */
  private died(slot: Slot, e: Error): void {
    const at = this.slots.indexOf(slot);
    if (at === -1) return;
    this.slots.splice(at, 1);
    if (slot.idle) clearTimeout(slot.idle);
    const job = slot.job;
    slot.job = undefined;
    const oom = (e as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
    job?.reject(new Error(oom ? `${job.name} ran out of the pixel worker's memory` : `the pixel worker running ${job.name} died: ${e.message}`));
    this.next();
  }

  /** Ends the workers; what runs or waits fails. */
  async close(): Promise<void> {
    const closing = new Error('the pixel pool is closing');
    for (const job of this.waiting.splice(0)) job.reject(closing);
    await Promise.all(this.slots.splice(0).map((s) => {
      if (s.idle) clearTimeout(s.idle);
      s.job?.reject(closing);
      return s.worker.terminate();
    }));
  }
}

/** The process's pool: every image operation and decode shares it. */
const pool = new PixelPool(PIXEL_POOL);

/** The process's pool's workers and the pieces it has run (what a request made the server decode). */
export const pixelPoolStats = () => pool.stats();

/** Run one of the pixel operations on the pool (its arguments are copied to the worker). */
export function offThread<K extends keyof Work>(name: K, ...args: Parameters<Work[K]>): Promise<Rgba> {
  return pool.run(name, args);
}
