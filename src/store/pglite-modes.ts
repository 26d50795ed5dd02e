// PGlite's file system layer (Emscripten NODEFS) creates every file and then chmods it to the
// mode its in-memory copy had: 0666 for the files initdb made, 0644 for pg_internal.init. An
// explicit chmod ignores the umask, so files under the data dir ended up readable (and
// writable) by everyone. On the thread that runs PGlite, chmod keeps group and other bits
// off: whatever PGlite asks for, only the owner gets it.
import { createRequire } from 'node:module';
import { syncBuiltinESMExports } from 'node:module';
import type { Mode, PathLike } from 'node:fs';

const SHARED_BITS = 0o077;
let installed = false;

interface MutableFs {
  chmodSync(path: PathLike, mode: Mode): void;
  fchmodSync(fd: number, mode: Mode): void;
}

export function keepPgliteFilesPrivate(): void {
  if (installed) return;
  installed = true;
  const fs = createRequire(import.meta.url)('node:fs') as MutableFs;
  const { chmodSync, fchmodSync } = fs;
  fs.chmodSync = (path, mode) => chmodSync(path, privateMode(mode));
  fs.fchmodSync = (fd, mode) => fchmodSync(fd, privateMode(mode));
  syncBuiltinESMExports(); // `import * as fs` namespaces see the wrapped functions too
}

function privateMode(mode: Mode): number {
  return (typeof mode === 'number' ? mode : parseInt(mode, 8)) & ~SHARED_BITS;
}
