// The usage journal's file rules: a line is kept until it is done, a finished segment is
// deleted, a torn tail is dropped, a kept line survives for the next start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Journal } from './journal.ts';

const tempDir = () => mkdtempSync(join(tmpdir(), 'gantry-journal-test-'));

test('lines are on disk when append returns and come back after a crash, in order', () => {
  const dir = tempDir();
  try {
    const { journal, recovered } = Journal.open(dir, { fsync: false });
    assert.deepEqual(recovered, []);
    for (let i = 0; i < 5; i++) journal.append([JSON.stringify({ i })]);
    journal.append([5, 6, 7].map((i) => JSON.stringify({ i }))); // several lines with one write
    assert.equal(journal.pending, 8);
    // No close(): as after kill -9. A new process opens the same directory.
    const again = Journal.open(dir, { fsync: false });
    assert.deepEqual(again.recovered.map((r) => JSON.parse(r.line).i), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.equal(again.journal.pending, 8, 'recovered lines are pending until done');
    again.journal.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a segment is deleted once it is closed and all its lines are done; open ones stay', () => {
  const dir = tempDir();
  try {
    const { journal } = Journal.open(dir, { fsync: false, segmentBytes: 64 });
    const segs = Array.from({ length: 10 }, (_, i) => journal.append([JSON.stringify({ i, pad: 'x'.repeat(20) })]));
    assert.ok(new Set(segs).size >= 3, 'small segments rotate');
    assert.equal(readdirSync(dir).length, new Set(segs).size + 1, 'rotated segments and the current one are on disk');
    for (const s of segs.slice(0, 5)) journal.done(s);
    assert.ok(readdirSync(dir).length < new Set(segs).size + 1, 'finished segments are gone');
    for (const s of segs.slice(5)) journal.done(s);
    assert.equal(journal.pending, 0);
    journal.close();
    assert.deepEqual(readdirSync(dir), [], 'nothing left after everything is done and the journal closed');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a torn last line (no newline) is dropped; complete lines are replayed', () => {
  const dir = tempDir();
  try {
    writeFileSync(join(dir, 'usage-000000000001.jsonl'), '{"a":1}\n{"a":2}\n{"a":');
    const { journal, recovered } = Journal.open(dir, { fsync: false });
    assert.deepEqual(recovered.map((r) => r.line), ['{"a":1}', '{"a":2}']);
    // New lines go to a new segment, never after the torn tail.
    const seg = journal.append(['{"a":3}']);
    assert.equal(seg, 2);
    journal.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a kept line keeps its segment for the next start, even when every line is done', () => {
  const dir = tempDir();
  try {
    const { journal } = Journal.open(dir, { fsync: false });
    const seg = journal.append(['{"bad":true}']);
    journal.keep(seg);
    journal.done(seg);
    journal.close();
    const files = readdirSync(dir);
    assert.equal(files.length, 1);
    assert.equal(readFileSync(join(dir, files[0]!), 'utf8'), '{"bad":true}\n');
    const again = Journal.open(dir, { fsync: false });
    assert.deepEqual(again.recovered.map((r) => r.line), ['{"bad":true}']);
    again.journal.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('fsync mode: sync() resolves for every waiter, across a rotation', async () => {
  const dir = tempDir();
  try {
    const { journal } = Journal.open(dir, { fsync: true, segmentBytes: 256 });
    const waits: Promise<void>[] = [];
    for (let i = 0; i < 50; i++) {
      journal.append([JSON.stringify({ i, pad: 'y'.repeat(30) })]);
      waits.push(journal.sync());
    }
    await Promise.all(waits);
    appendFileSync(join(dir, 'unrelated.txt'), 'ignored'); // other files in the directory are not segments
    const again = Journal.open(dir, { fsync: false });
    assert.equal(again.recovered.length, 50);
    again.journal.close();
    journal.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
