#!/usr/bin/env node
// `npx gantry …` resolves `node` from node_modules/.bin, the Node 24 pinned by the project,
// which runs the TypeScript sources directly.
await import('../src/main.ts');
