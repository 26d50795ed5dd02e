#!/usr/bin/env node
// `npx gantry …` resolves `node` from node_modules/.bin, the Node 24 pinned by the project,
// which runs the TypeScript sources directly. Run by another Node (`node bin/gantry.mjs` with
// the machine's), it says so in one line instead of failing on the first `.ts` import. The
// requirement is said here, not in package.json's `engines`: npm checks the project's own
// engines against the Node npm runs on at every `npx`, and warned ten lines on a Node 20
// machine even though npx then ran the pinned Node 24.
const [major] = process.versions.node.split('.').map(Number);
if (major < 24) {
  process.stderr.write(`gantry needs Node.js 24 or newer; this is ${process.version} (${process.execPath}). `
    + 'Run it with the Node the project pins: npx gantry … or npm start in the project directory after npm install '
    + '(both put node_modules/.bin first), or PATH=$PWD/node_modules/.bin:$PATH.\n');
  process.exit(1);
}
await import('../src/main.ts');
