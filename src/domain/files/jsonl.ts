// Checks a batch input file while it streams to the blob store: JSONL, one JSON object per
// line, within the size and line limits. The first broken rule throws (a 400 naming the rule
// and the line), which fails the blob store's put: nothing of a bad file is kept. Memory is
// one line at most, and a line is at most `maxLineBytes` (a model call's body limit: a
// longer line could never be sent as a request anyway).
import { badFile as broken } from './errors.ts';
import { jsonTooDeep, MAX_JSON_DEPTH } from '../../lib/json-depth.ts';

export interface JsonlLimits {
  maxBytes: number;
  maxLines: number;
  maxLineBytes: number;
}

const NL = 0x0a;
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Pass `body` through unchanged, checking it on the way; `requests()` is the number of
 * non-blank lines once the stream has ended. Blank lines are skipped (not requests).
 */
export function checkedJsonl(body: AsyncIterable<Uint8Array>, limits: JsonlLimits): { chunks: AsyncGenerator<Uint8Array>; requests(): number } {
  let bytes = 0;
  let lineNo = 0;
  let requests = 0;
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;

  const line = (buf: Uint8Array): void => {
    lineNo++;
    let text: string;
    try {
      text = decoder.decode(buf);
    } catch {
      throw broken('utf-8', `line ${lineNo} is not valid UTF-8`, { line: lineNo });
    }
    if (text.trim() === '') return;
    // a line is a request body: the same nesting limit (lib/json-depth.ts)
    if (jsonTooDeep(text)) {
      throw broken('max_depth', `line ${lineNo} nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`, { line: lineNo, limit: MAX_JSON_DEPTH });
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw broken('jsonl', `line ${lineNo} is not valid JSON (${(e as Error).message.slice(0, 120)})`, { line: lineNo });
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw broken('jsonl', `line ${lineNo} must be a JSON object`, { line: lineNo });
    }
    if (++requests > limits.maxLines) {
      throw broken('max_lines', `at most ${limits.maxLines} requests (lines) per file`, { line: lineNo, limit: limits.maxLines });
    }
  };
  const hold = (part: Uint8Array): void => {
    pendingBytes += part.byteLength;
    if (pendingBytes > limits.maxLineBytes) {
      throw broken('max_line_bytes', `line ${lineNo + 1} is longer than ${limits.maxLineBytes} bytes`, { line: lineNo + 1, limit: limits.maxLineBytes });
    }
    pending.push(part);
  };
  const flush = (): void => {
    const whole = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
    pending = [];
    pendingBytes = 0;
    line(whole);
  };

  async function* chunks(): AsyncGenerator<Uint8Array> {
    for await (const chunk of body) {
      bytes += chunk.byteLength;
      if (bytes > limits.maxBytes) throw broken('max_bytes', `at most ${limits.maxBytes} bytes per file`, { limit: limits.maxBytes });
      let from = 0;
      for (let nl = chunk.indexOf(NL); nl !== -1; nl = chunk.indexOf(NL, from)) {
        hold(chunk.subarray(from, nl));
        flush();
        from = nl + 1;
      }
      if (from < chunk.byteLength) hold(chunk.slice(from)); // a copy: the source may reuse its buffer
      yield chunk;
    }
    if (pendingBytes > 0) flush(); // a last line without a newline
    if (requests === 0) throw broken('not_empty', 'the file has no requests (no non-blank lines)');
  }
  return { chunks: chunks(), requests: () => requests };
}
