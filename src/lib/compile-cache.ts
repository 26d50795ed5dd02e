// Node's compile cache for the server's modules: V8's code cache of each module, and the
// TypeScript of our own with its types already stripped, kept on disk so a start does not
// compile and strip ~1,000 modules again. Each entry is checked against the file it came
// from, so an edited file is simply compiled again. It lives beside the embedded database's
// template in node_modules/.cache/gantry/ and is warmed at install (src/postinstall.ts), so
// the first start after `npm install` has it too. An operator's NODE_COMPILE_CACHE or
// NODE_DISABLE_COMPILE_CACHE is left to Node.
// The server's re-execution (malloc-tuning.ts) names the cache in NODE_COMPILE_CACHE
// (compileCacheEnv), so Node turns it on at its start, for every thread, before the first
// module: then no module at all is stripped of its types, and Node never loads its
// TypeScript stripper (a WebAssembly module whose memory stays: ~9 MB of an idle server's
// RSS, bench/README.md). Without a re-execution (another platform, an inspector, an operator
// who set the allocator and flags), each thread turns it on itself (useCompileCache): the
// main thread (src/main.ts) and the embedded database's (store/pglite-thread.ts).
import { enableCompileCache } from 'node:module';
import { fileURLToPath } from 'node:url';

export const COMPILE_CACHE_DIR = fileURLToPath(new URL('../../node_modules/.cache/gantry/compile/', import.meta.url));

const operatorChose = (env: NodeJS.ProcessEnv) => env.NODE_COMPILE_CACHE !== undefined || env.NODE_DISABLE_COMPILE_CACHE !== undefined;

/** Turn the cache on for this thread (a directory that cannot be made only leaves it off). */
export function useCompileCache(): void {
  if (operatorChose(process.env)) return; // theirs, or ours already set by the re-execution
  enableCompileCache(COMPILE_CACHE_DIR);
}

/** What a re-execution adds to its environment: our cache, unless the operator chose. */
export function compileCacheEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return operatorChose(env) ? {} : { NODE_COMPILE_CACHE: COMPILE_CACHE_DIR };
}
