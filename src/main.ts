// The entry: `node src/main.ts serve | migrate | admin … | help` (npm start, bin/gantry.mjs). It loads
// nothing but three small modules of lib/ before deciding whether the server re-executes
// itself with glibc's allocator tuned (malloc-tuning.ts says why), so a re-execution costs a
// bare Node start (~20 ms) rather than the ~100 modules of the commands (src/cli/commands.ts)
// loaded twice.
import { reexecWithMallocTuning } from './lib/malloc-tuning.ts';
import './lib/drizzle-resolve.ts'; // before anything loads drizzle-orm: ~0.4 s of a start (that module says why)
import { compileCacheEnv, useCompileCache } from './lib/compile-cache.ts';

const argv = process.argv.slice(2);
reexecWithMallocTuning(argv[0] ?? '', compileCacheEnv(process.env)); // on from the new image's start (compile-cache.ts)
useCompileCache(); // without a re-execution; after it, since its flags are part of the cache's key
const { main } = await import('./cli/commands.ts');
await main(argv);
