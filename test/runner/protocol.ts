// What a worker (test/runner/worker.ts) and the runner (test/runner/run.ts) say to each other:
// the runner writes commands to the worker's stdin, one JSON line each; the worker writes
// events to file descriptor 3, one JSON line each. stdout and stderr stay the tests' own.

/** runner → worker */
export type Command = { run: string } | { done: true };

export interface Failure {
  /** the test's name, its suites' names before it */
  name: string;
  message: string;
  /** the error's stack, or what the runner said (a timeout, a hook that failed) */
  detail: string;
}

export interface FileResult {
  type: 'file';
  file: string;
  passed: number;
  failed: number;
  skipped: number;
  /** why tests were skipped, by reason */
  skips: Record<string, number>;
  failures: Failure[];
  /** CPU seconds the worker (all its threads, and the processes it waited for) spent on the file */
  cpuSeconds?: number;
}

/** Node's word that a finished test's asynchronous activity threw: the file failed. */
export interface LateError {
  type: 'late';
  message: string;
}

export interface WorkerEnd {
  type: 'end';
  /** CPU seconds of the worker and the processes it waited for (Linux /proc), or of the worker alone */
  cpuSeconds: number;
  maxRssMb: number;
}

export type WorkerEvent = { type: 'ready' } | FileResult | LateError | WorkerEnd;

export const EVENTS_FD = 3;
