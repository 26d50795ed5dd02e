// The entry: `node src/main.ts serve | migrate | admin …` (npm start, bin/gantry.mjs). It loads
// nothing but lib/malloc-tuning.ts before deciding whether the server re-executes itself with
// glibc's allocator tuned (that module says why), so a re-execution costs a bare Node start
// (~20 ms) rather than the ~100 modules of the commands (src/cli/commands.ts) loaded twice.
import { reexecWithMallocTuning } from './lib/malloc-tuning.ts';

const argv = process.argv.slice(2);
reexecWithMallocTuning(argv[0] ?? 'serve');
const { main } = await import('./cli/commands.ts');
await main(argv);
