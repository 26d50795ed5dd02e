import { createHash } from 'node:crypto';
import type { PutResult } from './types.ts';

/**
 * Pass `body` through, counting and hashing it on the way: what put answers without a
 * second read of the stored bytes. `result()` is final once the iteration has ended.
 */
export function measured(body: AsyncIterable<Uint8Array>): { chunks: AsyncGenerator<Uint8Array>; result(): PutResult } {
  const hash = createHash('sha256');
  let bytes = 0;
  let digest: string | undefined;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for await (const chunk of body) {
      hash.update(chunk);
      bytes += chunk.byteLength;
      yield chunk;
    }
    digest = hash.digest('hex');
  }
  return {
    chunks: chunks(),
    result: () => {
      if (digest === undefined) throw new Error('the body was not read to its end');
      return { bytes, sha256: digest };
    },
  };
}
