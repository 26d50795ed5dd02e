// The embedded database's settings that configuration validates (config.ts), kept apart
// from pglite-options.ts so that reading the configuration never loads PGlite.
export const DEFAULT_SHARED_BUFFERS = '16MB';

/** PostgreSQL's size syntax for shared_buffers: 128kB to a few GB. */
export const SHARED_BUFFERS_RE = /^[1-9]\d{0,6}(kB|MB|GB)$/;
