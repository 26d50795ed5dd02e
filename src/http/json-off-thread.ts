// JSON request bodies of a megabyte or more are decoded and parsed on a worker thread:
// JSON.parse of an 8 MB prompt holds the event loop for 10–25 ms (70 ms on a loaded
// machine), plus as much again for the prototype-poisoning scan, while every other request
// waits. Here the body's blocks (json-body.ts) are moved to the worker (no copy) and the main
// thread only rebuilds the parsed value from the worker's message (a copy of the strings, a
// few ms).
// The worker is shared by every tenant, so it holds one body at a time: the others wait here,
// still ours. Should it die (whatever the reason), the body it held is the one that failed,
// and the bodies waiting go to a fresh worker: one request can fail only itself.
// The worker starts on the first big body and is ended when the app closes.
import { Worker } from 'node:worker_threads';
import type { ParseOutcome, ParseReply, ParseRequest } from './json-parse-worker.ts';

export type { ParseOutcome };

interface Job {
  blocks: Buffer[];
  resolve: (o: ParseOutcome) => void;
  reject: (e: Error) => void;
}

export class OffThreadJson {
  private worker: Worker | undefined;
  private nextId = 1;
  /** the body the worker holds, and the ones waiting for it (in order) */
  private current: (Job & { id: number }) | undefined;
  private readonly waiting: Job[] = [];
  private closed = false;
  private readonly script: URL;
  private readonly onCrash: (e: Error) => void;

  /** `script`: the worker's module (tests give one that can crash); `onCrash`: told when a worker dies. */
  constructor(opts: { script?: URL; onCrash?: (e: Error) => void } = {}) {
    this.script = opts.script ?? new URL('./json-parse-worker.ts', import.meta.url);
    this.onCrash = opts.onCrash ?? (() => {});
  }

  /**
   * Parse the body made of `blocks`, taken over: each must have memory of its own
   * (`Buffer.allocUnsafeSlow`, never a slice of Node's shared pool), which is moved to the
   * worker and is unusable here afterwards.
   */
  parse(blocks: Buffer[]): Promise<ParseOutcome> {
    if (this.closed) return Promise.reject(new Error('the JSON parser is closed'));
    return new Promise((resolve, reject) => {
      this.waiting.push({ blocks, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    if (this.current || this.closed) return;
    const job = this.waiting.shift();
    if (!job) return;
    const id = this.nextId++;
    this.current = { ...job, id };
    this.worker ??= this.start();
    const msg: ParseRequest = { id, blocks: job.blocks };
    this.worker.postMessage(msg, job.blocks.map((b) => b.buffer as ArrayBuffer));
  }

  private start(): Worker {
    const w = new Worker(this.script);
    let online = false;
    w.on('online', () => { online = true; });
    w.on('message', (m: ParseReply) => {
      if (w !== this.worker || m.id !== this.current?.id) return;
      const { resolve } = this.current;
      this.current = undefined;
      const { id: _id, ...outcome } = m;
      resolve(outcome);
      this.next();
    });
    // the answer could not be read here: that body failed, the worker is fine
    w.on('messageerror', () => {
      if (w !== this.worker || !this.current) return;
      const { resolve } = this.current;
      this.current = undefined;
      resolve({ failed: true });
      this.next();
    });
    const died = (e: Error) => {
      if (w !== this.worker) return; // told once ('error' is followed by 'exit'), or closed
      this.worker = undefined;
      void w.terminate();
      this.onCrash(e);
      const job = this.current;
      this.current = undefined;
      // a worker that ran and died holding a body died of that body; one that never ran, of its start
      if (job && online) job.resolve({ failed: true });
      else job?.reject(e);
      this.next();
    };
    w.on('error', died);
    w.on('exit', (code) => died(new Error(`the JSON parsing worker exited (${code})`)));
    w.unref();
    return w;
  }

  async close(): Promise<void> {
    this.closed = true;
    const w = this.worker;
    this.worker = undefined;
    const closing = new Error('the server is closing');
    for (const job of [this.current, ...this.waiting.splice(0)]) job?.reject(closing);
    this.current = undefined;
    if (w) await w.terminate();
  }
}
