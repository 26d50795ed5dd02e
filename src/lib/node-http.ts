// node:http's exports, without an ES import of it. An `import … from 'node:http'` (any form)
// builds the module's namespace from every export, and three of them (WebSocket, CloseEvent,
// MessageEvent) are getters that load Node's own bundled undici: ~750 KB of source compiled
// and kept in every process, ~13 MB of RSS in a bare Node (bench/README.md, "idle memory").
// Gantry never uses them (its HTTP client is the undici package, loaded on first use:
// lib/undici.ts); process.getBuiltinModule hands over the exports object as it is.
// Type-only imports of node:http are erased and stay as they are.
export const nodeHttp = process.getBuiltinModule('node:http');
