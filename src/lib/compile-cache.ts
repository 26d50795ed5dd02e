// Node's compile cache for the server's modules: V8's code cache of each module, and the
// TypeScript of our own with its types already stripped, kept on disk so a start does not
// compile and strip ~1,000 modules again. Each entry is checked against the file it came
// from, so an edited file is simply compiled again. It lives beside the embedded database's
// template in node_modules/.cache/gantry/ and is warmed at install (src/postinstall.ts), so
// the first start after `npm install` has it too. An operator's NODE_COMPILE_CACHE or
// NODE_DISABLE_COMPILE_CACHE is left to Node. The cache is per thread: the main thread
// (src/main.ts) and the embedded database's (store/pglite-thread.ts) each turn it on.
import { enableCompileCache } from 'node:module';
import { fileURLToPath } from 'node:url';

export const COMPILE_CACHE_DIR = fileURLToPath(new URL('../../node_modules/.cache/gantry/compile/', import.meta.url));

/** Turn the cache on for this thread (a directory that cannot be made only leaves it off). */
export function useCompileCache(): void {
  if (process.env.NODE_COMPILE_CACHE !== undefined || process.env.NODE_DISABLE_COMPILE_CACHE !== undefined) return;
  enableCompileCache(COMPILE_CACHE_DIR);
}
