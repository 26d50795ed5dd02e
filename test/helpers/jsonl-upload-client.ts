// A client process for upload tests: POSTs a generated batch input file (LINES lines of
// LINE_BYTES bytes each, made as they are sent) as multipart to URL with KEY, and prints
// `{status, body}` of the answer as JSON.
//   node test/helpers/jsonl-upload-client.ts URL KEY LINES LINE_BYTES
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { text } from 'node:stream/consumers';

const [url, key, linesArg, lineBytesArg] = process.argv.slice(2);
const lines = Number(linesArg);
const lineBytes = Number(lineBytesArg);
const BOUNDARY = 'gantry-upload-client-boundary';

function line(i: number): string {
  const head = `{"custom_id":"r${i}","body":{"model":"gantry/sim-chat-small","messages":[{"role":"user","content":"`;
  const tail = '"}]}}\n';
  return head + 'x'.repeat(Math.max(0, lineBytes - head.length - tail.length)) + tail;
}

async function* body(): AsyncGenerator<Buffer> {
  // the file first, then the purpose: the order the OpenAI SDKs send
  yield Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.jsonl"\r\nContent-Type: application/jsonl\r\n\r\n`);
  for (let i = 0; i < lines; i += 16) {
    let chunk = '';
    for (let j = i; j < Math.min(lines, i + 16); j++) chunk += line(j);
    yield Buffer.from(chunk);
  }
  yield Buffer.from(`\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--${BOUNDARY}--\r\n`);
}

const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
  const req = request(url!, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'transfer-encoding': 'chunked' },
  }, (res) => {
    text(res).then((b) => resolve({ status: res.statusCode ?? 0, body: b }), reject);
  });
  req.on('error', reject);
  pipeline(Readable.from(body()), req).catch(reject);
});
process.stdout.write(JSON.stringify(answer));
