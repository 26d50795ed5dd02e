// The worker's reporter (`node --test-reporter=…/reporter.ts test/runner/worker.ts`): it turns
// node:test's events into one result per file for the runner, and tells the worker when a
// file's suite has ended. It yields nothing: the runner prints.
import type { Failure, FileResult } from './protocol.ts';
import { cpuSince, markFinished, send } from './current-file.ts';

interface TestData {
  name: string;
  nesting: number;
  skip?: string | boolean;
  todo?: string | boolean;
  details?: { type?: 'suite' | 'test'; error?: unknown };
  message?: string;
}

function describeError(e: unknown): { message: string; detail: string } {
  // node:test wraps what a test threw in ERR_TEST_FAILURE; the thrown value is its cause
  const err = e as { cause?: unknown; message?: string; stack?: string; failureType?: string };
  const inner = (err?.cause ?? err) as { message?: string; stack?: string } | string;
  if (typeof inner !== 'object' || inner === null) return { message: String(inner), detail: '' };
  const message = inner.message ?? String(inner);
  const detail = [inner.stack ?? '', err.failureType && err.failureType !== 'testCodeFailure' ? `(${err.failureType})` : ''].filter(Boolean).join('\n');
  return { message, detail };
}

export default async function* reporter(source: AsyncIterable<{ type: string; data: TestData }>): AsyncGenerator<string> {
  let result: FileResult | undefined;
  const path: string[] = [];
  for await (const { type, data } of source) {
    if (type === 'test:start') {
      path[data.nesting] = data.name;
      if (data.nesting === 0) result = { type: 'file', file: data.name, passed: 0, failed: 0, skipped: 0, skips: {}, failures: [] };
      continue;
    }
    if (type === 'test:diagnostic' && data.nesting === 0 && /asynchronous activity after the test ended/.test(data.message ?? '')) {
      send({ type: 'late', message: data.message ?? '' });
      continue;
    }
    if (type !== 'test:pass' && type !== 'test:fail') continue;
    if (data.nesting === 0) {
      if (result) {
        // a failure of the file's own suite (its import, a top-level hook) with no test failing
        if (type === 'test:fail' && result.failed === 0) {
          result.failed++;
          result.failures.push({ name: '(the file itself)', ...describeError(data.details?.error) });
        }
        result.cpuSeconds = cpuSince(result.file);
        send(result);
        markFinished(result.file);
      }
      result = undefined;
      continue;
    }
    if (!result || data.details?.type === 'suite') continue;
    const skip = data.skip ?? data.todo;
    if (skip) {
      result.skipped++;
      const why = typeof skip === 'string' ? skip : '(no reason given)';
      result.skips[why] = (result.skips[why] ?? 0) + 1;
    } else if (type === 'test:pass') result.passed++;
    else {
      result.failed++;
      const f: Failure = { name: path.slice(1, data.nesting).concat(data.name).join(' › '), ...describeError(data.details?.error) };
      result.failures.push(f);
    }
  }
  yield '';
}
