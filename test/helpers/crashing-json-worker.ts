// A JSON parsing worker with the protocol of src/http/json-parse-worker.ts and a way to die:
// a body holding "crash":"exit" ends the thread, "crash":"throw" throws outside any handler
// (an uncaught error), as a body that broke the real worker would. (The real module is not
// imported: it answers every message itself.) For src/http/json-off-thread.test.ts.
import { parentPort } from 'node:worker_threads';

parentPort?.on('message', (m: { id: number; blocks: Uint8Array[] }) => {
  const text = Buffer.concat(m.blocks).toString('utf8');
  if (text.includes('"crash":"exit"')) process.exit(7);
  if (text.includes('"crash":"throw"')) setImmediate(() => { throw new Error('poisoned'); });
  else parentPort!.postMessage({ id: m.id, value: JSON.parse(text) });
});
