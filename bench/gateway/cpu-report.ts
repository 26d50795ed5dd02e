// Lets the runner ask a server process for its CPU time: a line "cpu" on stdin is answered
// with {"cpuUs", "mainUs", "rssMb"} on stdout: user + system microseconds of the whole process
// and of its main thread (Gantry's embedded database runs on a second thread), and the
// process's resident memory at that moment (read at the end of a load cell: memory under load). CPU time per request does not
// depend on what else the shared machine runs, unlike req/s and latency.
export function answerCpuQueries(): void {
  let buf = '';
  process.stdin.on('data', (d) => {
    buf += d;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      if (buf.slice(0, nl).trim() === 'cpu') {
        const u = process.cpuUsage();
        const m = process.threadCpuUsage();
        process.stdout.write(JSON.stringify({ cpuUs: u.user + u.system, mainUs: m.user + m.system, rssMb: Math.round(process.memoryUsage.rss() / 2 ** 20) }) + '\n');
      }
      buf = buf.slice(nl + 1);
    }
  });
}
