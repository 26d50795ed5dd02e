// A closed-loop load generator over undici: `connections` workers each send the next
// request as soon as the previous answer is read. Reports req/s and latency percentiles.
import { Pool } from 'undici';

export interface LoadResult {
  connections: number;
  requests: number;
  /** every answer, warm-up and the last in-flight ones included (for CPU per request) */
  totalRequests: number;
  errors: number;
  reqPerS: number;
  p50Ms: number;
  p99Ms: number;
}

export async function load(url: string, path: string, headers: Record<string, string>, body: string, connections: number, warmupMs: number, durationMs: number): Promise<LoadResult> {
  const pool = new Pool(url, { connections, pipelining: 1, keepAliveTimeout: 30_000 });
  const latencies: number[] = [];
  let errors = 0;
  let measuring = false;
  let stop = false;
  let total = 0;
  const worker = async () => {
    while (!stop) {
      const t0 = performance.now();
      try {
        const res = await pool.request({ path, method: 'POST', headers, body });
        await res.body.text();
        total++;
        if (res.statusCode !== 200) errors++;
      } catch {
        errors++;
      }
      if (measuring && !stop) latencies.push(performance.now() - t0);
    }
  };
  const workers = Array.from({ length: connections }, worker);
  await new Promise((r) => setTimeout(r, warmupMs));
  measuring = true;
  const start = performance.now();
  await new Promise((r) => setTimeout(r, durationMs));
  stop = true;
  const elapsed = performance.now() - start;
  await Promise.all(workers);
  await pool.close();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
  return { connections, requests: latencies.length, totalRequests: total, errors, reqPerS: (latencies.length * 1000) / elapsed, p50Ms: pct(0.5), p99Ms: pct(0.99) };
}
