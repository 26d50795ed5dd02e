// The body of a pixel worker (sim-thread.ts): runs one of sim-edits.ts's operations, or the
// PNG decoder, on what it was given and posts the result back, its bytes transferred, not
// copied. A failure is posted as its name and message (a PngError stays recognisable).
import { parentPort, workerData } from 'node:worker_threads';
import { decodePng } from '../../lib/png-decode.ts';
import * as edits from './sim-edits.ts';

const work = { ...edits, decodePng } as Record<string, (...a: unknown[]) => { data: Uint8Array }>;
const { name, args } = workerData as { name: string; args: unknown[] };
try {
  const out = work[name]!(...args);
  parentPort!.postMessage({ out }, [out.data.buffer as ArrayBuffer]);
} catch (err) {
  parentPort!.postMessage({ error: { name: (err as Error).name, message: (err as Error).message } });
}
