// Imported for its effect, first thing in the threads of `gantry` that load drizzle-orm
// (src/main.ts, and store/pglite-thread.ts for the embedded database's): drizzle-orm's own
// files find each other without Node's package lookup, and a package the project imports is
// looked up once.
//
// Why: for each file it loads, Node (24.x) looks up the file's package scope to decide its
// format, and that lookup parses the package's whole "exports" map again (the lazy getter in
// node:internal/modules/package_json_reader). drizzle-orm's package.json holds 447 exports
// (179 KB), and the entry points the store imports load a few hundred of its files:
// `import('drizzle-orm'); import('drizzle-orm/pg-core')` alone took ~480 ms, ~70 ms with
// the lookup skipped (bench/README.md, "drizzle-orm's files and Node's compile cache"). Between drizzle-orm's own ES modules
// the answer is known: a relative URL, format 'module' (the package is "type": "module", with
// no package.json below its root). The same holds between typebox's own files (.mjs, ES
// modules whatever the scope says): ~2,300 lookups at a start, ~90 ms.
// The project's own files import packages by name ('drizzle-orm/pg-core' from ~50 files), and
// each such import is resolved again through the package's exports map: for drizzle-orm ~5 ms
// each, ~250 ms of a start's main thread (bench/README.md, "the start's CPU").
// A name resolves the same from every project file (one node_modules), so the first answer
// for a name and set of conditions is kept. Anything else goes to Node's resolution as before.
import { registerHooks, type ResolveFnOutput } from 'node:module';

/** Packages whose files import each other by relative URLs ending in `ext`, all ES modules. */
const OWN_FILES = [
  { root: new URL('.', import.meta.resolve('drizzle-orm')).href, ext: '.js' }, // drizzle-orm/index.js → the package's root
  { root: new URL('../', import.meta.resolve('typebox')).href, ext: '.mjs' }, // typebox/build/index.mjs → the package's root
];
const PROJECT = new URL('../../', import.meta.url).href;

/** Whether a specifier names a package ('fastify', '@scope/pkg/sub'): not a path, URL or builtin. */
const isBare = (s: string) => !s.startsWith('.') && !s.startsWith('/') && !s.includes(':') && !s.startsWith('#');
const byName = new Map<string, ResolveFnOutput>();

registerHooks({
  resolve(specifier, context, nextResolve) {
    const parent = context.parentURL;
    const own = parent && (specifier.startsWith('./') || specifier.startsWith('../')) ? OWN_FILES.find((p) => parent.startsWith(p.root)) : undefined;
    if (own && specifier.endsWith(own.ext)) {
      const url = new URL(specifier, parent).href;
      if (url.startsWith(own.root)) return { url, format: 'module', shortCircuit: true };
    }
    if (parent?.startsWith(PROJECT) && !parent.includes('/node_modules/') && isBare(specifier)) {
      const key = `${specifier}\0${context.conditions.join(',')}`;
      const known = byName.get(key);
      if (known) return known;
      const resolved = nextResolve(specifier, context);
      byName.set(key, { ...resolved, shortCircuit: true });
      return resolved;
    }
    return nextResolve(specifier, context);
  },
});
