// PGlite's WebAssembly (9 MB) compiled once per process and handed to every later database
// thread. Each embedded store runs on a thread of its own (pglite-remote.ts); a thread that
// compiles the module itself gets V8's compiled code only while another thread still holds
// it, so a process that opens one store after another (the tests) compiled and tiered it up
// again for each, ~1.7 s of CPU a store (bench/README.md, "Tests in tiers"). A process that
// opens one store (`gantry serve`) is left as it was: the compile starts with the second.
import { readFileSync } from 'node:fs';

const DIST = new URL('./', import.meta.resolve('@electric-sql/pglite'));

/** A compiled WebAssembly.Module (the server's project has no DOM lib, where that type lives): it crosses to a thread as it is. */
export type CompiledModule = object;
const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<CompiledModule> } }).WebAssembly;

let compiled: CompiledModule | undefined;
let compiling: Promise<void> | undefined;
let starts = 0;

/** The compiled module when it is ready; the second store's start begins the compile (off this thread). */
export function compiledPgliteModule(): CompiledModule | undefined {
  if (++starts < 2) return undefined;
  compiling ??= wasm.compile(readFileSync(new URL('pglite.wasm', DIST))).then(
    (m) => { compiled = m; },
    () => {}, // the thread compiles it itself, as PGlite does by default
  );
  return compiled;
}

/** Resolves once the compile started by compiledPgliteModule() has ended (tests). */
export async function pgliteModuleSettled(): Promise<void> {
  starts++;
  compiledPgliteModule();
  await compiling;
}
