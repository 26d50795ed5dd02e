// How the embedded PostgreSQL starts. PGlite's own default shared_buffers (128 MB) is
// PostgreSQL's server default; for an embedded database whose working set is a few MB it
// mostly costs memory: measured idle, 32 MB takes ~120 MB off the process's RSS (the
// buffer pool lives in the WebAssembly memory, which never shrinks), and 16 MB another
// 18–21 MB, with no cost measured on the gateway under load (the database thread's CPU per
// request) nor on a 100,000-instance list (test/console-scale.test.ts's pages): reads beyond
// it come from the OS page cache, a syscall away (bench/README.md, "2026-11-26, evening").
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { DEFAULT_SHARED_BUFFERS } from './pglite-settings.ts';
import type { CompiledModule } from './pglite-artifacts.ts';

export function pgliteOptions(init: { dataDir?: string | undefined; loadDataDir?: Blob | undefined; sharedBuffers?: string | undefined; wasmModule?: CompiledModule | undefined }): PGliteOptions {
  return {
    ...(init.wasmModule ? { pgliteWasmModule: init.wasmModule } : {}),
    ...(init.dataDir ? { dataDir: init.dataDir } : {}),
    ...(init.loadDataDir ? { loadDataDir: init.loadDataDir } : {}),
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${init.sharedBuffers ?? DEFAULT_SHARED_BUFFERS}`],
  };
}
