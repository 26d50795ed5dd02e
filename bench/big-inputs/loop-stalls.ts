// Preloaded into a Gantry process (node --import) by bench/big-inputs/run.ts and
// test/big-inputs.process.test.ts: on SIGUSR2 it prints one line `{"stalls":{maxMs, maxCpuMs,
// maxWaitMs}}` on stdout with the event loop's worst stalls since the previous signal, and
// starts over. A 1 ms timer measures each stall (how long the loop could not run it) and how
// much CPU the main thread itself spent in it (process.threadCpuUsage); the rest of a stall
// is time the thread waited, for a core on a busy machine: the machine's, not the server's.
let maxWallMs = 0;
let maxCpuMs = 0;
let maxWaitMs = 0;
let last = performance.now();
let lastCpu = process.threadCpuUsage();
setInterval(() => {
  const now = performance.now();
  const cpu = process.threadCpuUsage();
  const wall = now - last - 1;
  const used = (cpu.user + cpu.system - lastCpu.user - lastCpu.system) / 1000;
  if (wall > maxWallMs) maxWallMs = wall;
  if (used > maxCpuMs) maxCpuMs = used;
  if (wall - used > maxWaitMs) maxWaitMs = wall - used;
  last = now;
  lastCpu = cpu;
}, 1).unref();

process.on('SIGUSR2', () => {
  const round = (x: number) => Math.round(x * 10) / 10;
  process.stdout.write(JSON.stringify({ stalls: { maxMs: round(maxWallMs), maxCpuMs: round(maxCpuMs), maxWaitMs: round(maxWaitMs) } }) + '\n');
  maxWallMs = 0;
  maxCpuMs = 0;
  maxWaitMs = 0;
});
