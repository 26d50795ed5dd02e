// JSON request bodies of a megabyte or more are decoded and parsed on a worker thread:
// JSON.parse of an 8 MB prompt holds the event loop for 10–25 ms (70 ms on a loaded
// machine), plus as much again for the prototype-poisoning scan, while every other request
// waits. Here the body's blocks (json-body.ts) are moved to the worker (no copy) and the main
// thread only rebuilds the parsed value from the worker's message (a copy of the strings, a
// few ms).
// The worker starts on the first big body and is ended when the app closes.
import { Worker } from 'node:worker_threads';
import type { ParseReply, ParseRequest } from './json-parse-worker.ts';

export type ParseOutcome = { value: unknown } | { empty: true } | { invalid: true };

export class OffThreadJson {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (o: ParseOutcome) => void; reject: (e: Error) => void }>();

  private start(): Worker {
    const w = new Worker(new URL('./json-parse-worker.ts', import.meta.url));
    w.on('message', (m: ParseReply) => {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      p?.resolve(m);
    });
    const fail = (e: Error) => {
      if (this.worker === w) this.worker = undefined; // the next body starts a new one
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`the JSON parsing worker exited (${code})`)));
    w.unref();
    return w;
  }

  /**
   * Parse the body made of `blocks`, taken over: each must have memory of its own
   * (`Buffer.allocUnsafeSlow`, never a slice of Node's shared pool), which is moved to the
   * worker and is unusable here afterwards.
   */
  parse(blocks: Buffer[]): Promise<ParseOutcome> {
    this.worker ??= this.start();
    const id = this.nextId++;
    const msg: ParseRequest = { id, blocks };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker!.postMessage(msg, blocks.map((b) => b.buffer as ArrayBuffer));
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }
}
