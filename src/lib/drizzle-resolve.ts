// Imported for its effect, first thing in the threads of `gantry` that load drizzle-orm
// (src/main.ts, and store/pglite-thread.ts for the embedded database's): drizzle-orm's own
// files find each other without Node's package lookup.
//
// Why: for each file it loads, Node (24.x) looks up the file's package scope to decide its
// format, and that lookup parses the package's whole "exports" map again (the lazy getter in
// node:internal/modules/package_json_reader). drizzle-orm's package.json holds 447 exports
// (179 KB), and the entry points the store imports load a few hundred of its files:
// `import('drizzle-orm'); import('drizzle-orm/pg-core')` alone took ~480 ms, ~70 ms with
// the lookup skipped (bench/README.md, "drizzle-orm's files and Node's compile cache"). Between drizzle-orm's own ES modules
// the answer is known: a relative URL, format 'module' (the package is "type": "module", with
// no package.json below its root). Anything else goes to Node's resolution as before.
import { registerHooks } from 'node:module';

const ROOT = new URL('.', import.meta.resolve('drizzle-orm')).href; // drizzle-orm/index.js → the package's root

registerHooks({
  resolve(specifier, context, nextResolve) {
    const parent = context.parentURL;
    if (parent?.startsWith(ROOT) && specifier.endsWith('.js') && (specifier.startsWith('./') || specifier.startsWith('../'))) {
      const url = new URL(specifier, parent).href;
      if (url.startsWith(ROOT)) return { url, format: 'module', shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
});
