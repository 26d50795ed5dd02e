// A pixel worker for pixel-pool.test.ts, speaking pixel-worker.ts's protocol: `hold` keeps the
// thread busy for a while and says when it ran (start and end, ms since the epoch, in width
// and height), `hog` grows JavaScript objects until V8's heap limit ends the thread, `exit`
// ends it at once.
import { parentPort } from 'node:worker_threads';
import type { PixelJob, PixelReply } from '../../src/domain/media/pixel-worker.ts';

parentPort!.on('message', (job: PixelJob) => {
  if (job.name === 'exit') process.exit(3);
  if (job.name === 'hog') {
    const kept: number[][] = [];
    for (;;) kept.push(Array.from({ length: 100_000 }, (_, i) => i + kept.length));
  }
  const start = Date.now();
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(job.args[0]));
  const reply: PixelReply = { id: job.id, out: { width: start, height: Date.now(), data: new Uint8Array(4) } };
  parentPort!.postMessage(reply);
});
