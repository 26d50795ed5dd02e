// A test worker: runs the test files the runner hands it, one after another, in this one
// process, each inside a suite of its own (`describe(file)`), so that a file's top-level
// hooks and tests stay its own as they would in a process of its own (Node's
// --test-isolation=none would add them to one root, shared by every file: nodejs/node#61854).
// The module graph (Fastify, PGlite, the app) is imported once per worker instead of once per
// file: most of what a fast-tier file cost. Results go to the runner through the reporter
// (test/runner/reporter.ts), which this process is started with.
import { describe } from 'node:test';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import type { Command } from './protocol.ts';
import { ROOT } from './tiers.ts';
import { cpuSeconds, fileFinished, send } from './current-file.ts';

async function runFile(file: string): Promise<void> {
  const finished = fileFinished(file);
  describe(file, async () => {
    await import(pathToFileURL(join(ROOT, file)).href);
  });
  await finished;
}

async function main(): Promise<void> {
  const commands = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  send({ type: 'ready' });
  for (;;) {
    const next = await commands.next();
    if (next.done) break;
    const cmd = JSON.parse(next.value) as Command;
    if ('done' in cmd) break;
    await runFile(cmd.run);
  }
  process.stdin.destroy();
  send({ type: 'end', cpuSeconds: cpuSeconds(), maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024) });
}

// Not awaited at the top level: Node's test harness starts the suites once this module has
// been evaluated, and each file's suite must run before the next one is asked for.
main().catch((e) => {
  process.stderr.write(`test worker: ${(e as Error).stack ?? e}\n`);
  process.exit(2);
});
