// The embedded database thread's entry (pglite-remote.ts starts it): the drizzle-orm resolve
// hook and the compile cache are per thread and must be in place before pglite-worker.ts's
// imports load (a static import list is resolved before any of the module's code runs).
import '../lib/drizzle-resolve.ts';
import { useCompileCache } from '../lib/compile-cache.ts';

useCompileCache(); // per thread too (lib/compile-cache.ts)

await import('./pglite-worker.ts');
