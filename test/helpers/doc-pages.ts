// The project's written pages as the documentation tests read them: which pages form the
// manual, the code blocks a page holds and which of them run, its headings' anchors and its
// links. Used by test/docs.test.ts, test/docs-config.test.ts, test/readme.process.test.ts and
// the image tests (test/helpers/gantry-image.ts).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import GithubSlugger from 'github-slugger';

export const ROOT = join(import.meta.dirname, '..', '..');

/** The manual's pages besides the README, one subject each, in the README's order. */
export const MANUAL = [
  'docs/configuration.md', 'docs/operator-guide.md', 'docs/tenant-api.md', 'docs/model-api.md', 'docs/media.md',
  'docs/webhooks.md', 'docs/compute.md', 'docs/console.md', 'docs/production.md', 'docs/security.md',
] as const;

/** The words a shell block's fence may carry after `sh`, and what each means. */
export const SHELL_FENCES: Record<string, string> = {
  '': 'run, in order, against a fresh Gantry by test/readme.process.test.ts',
  'on-a-gpu-server': 'needs a GPU server (the NVIDIA toolkit, a model served by vLLM); not run',
  deploy: 'builds or starts Gantry\'s own image, or acts on an installation\'s host; not run (the image tests run the image)',
  'with-containers': 'needs real containers (the docker driver) and GANTRY_SSH_LISTEN: SSH into an instance; not run here (src/gateway/ssh/ssh.engines.test.ts runs the same with the stock client)',
};

export function read(page: string): string {
  return readFileSync(join(ROOT, page), 'utf8');
}

/** The pages whose examples run: the README and every page of docs/. */
export function examplePages(): string[] {
  return ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
}

const NOT_PAGES = new Set(['node_modules', '.git', 'test-artifacts', 'data']);

/** Every Markdown file of the repository (the area READMEs, bench/README.md, fixtures' notes…). */
export function markdownPages(dir = ''): string[] {
  const out: string[] = [];
  for (const d of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = dir ? `${dir}/${d.name}` : d.name;
    if (d.isDirectory() && !NOT_PAGES.has(d.name)) out.push(...markdownPages(path));
    else if (d.isFile() && d.name.endsWith('.md')) out.push(path);
  }
  return out;
}

export interface Fence { lang: string; word: string; line: number }

/** The opening fences of a page's code blocks (indented ones too: a block inside a list item). */
export function fences(markdown: string): Fence[] {
  const out: Fence[] = [];
  let open = false;
  for (const [i, line] of markdown.split('\n').entries()) {
    const m = /^\s*```(\S*)\s*(.*)$/.exec(line);
    if (!m) continue;
    if (!open) out.push({ lang: m[1]!, word: m[2]!.trim(), line: i + 1 });
    open = !open;
  }
  assert.equal(open, false, 'a code block that is never closed');
  return out;
}

/** The page without its code: fenced blocks and inline code spans are text, not links or headings. */
export function prose(markdown: string): string {
  return markdown.replace(/^\s*```[\s\S]*?^\s*```/gm, '').replace(/`[^`\n]*`/g, 'code');
}

/** The anchors GitHub gives the page's headings. */
export function anchors(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const text = markdown.replace(/^\s*```[\s\S]*?^\s*```/gm, '');
  return new Set([...text.matchAll(/^#{1,6} +(.+?) *#*$/gm)].map((m) => slugger.slug(m[1]!)));
}

/** The page's link targets outside code: [text](target) and ![alt](target). */
export function links(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

/** ```sh blocks without a fence word, split into shell commands: continuation lines and multi-line quotes joined, comments dropped. */
export function shellCommands(markdown: string): string[] {
  const out: string[] = [];
  for (const m of markdown.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```/gm)) {
    let cmd = '';
    let quote: '"' | "'" | null = null;
    for (const line of m[1]!.split('\n')) {
      if (!cmd && !quote && (/^\s*#/.test(line) || !line.trim())) continue;
      const read = readShellLine(line, quote);
      quote = read.quote;
      cmd += read.kept + (quote ? '\n' : read.continued ? ' ' : '');
      if (!quote && !read.continued) {
        if (cmd.trim()) out.push(cmd.trim());
        cmd = '';
      }
    }
    assert.equal(quote, null, `unterminated quote in a shell block: ${cmd}`);
  }
  return out;
}

/** One line of a shell block: what it keeps (comments dropped), the quote still open at its end, whether it continues. */
function readShellLine(line: string, open: '"' | "'" | null): { kept: string; quote: '"' | "'" | null; continued: boolean } {
  let quote = open;
  let kept = '';
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote) {
      if (ch === '\\' && quote === '"') {
        kept += ch + (line[i + 1] ?? '');
        i++;
        continue;
      }
      if (ch === quote) quote = null;
      kept += ch;
      continue;
    }
    if (ch === '#' && (i === 0 || /\s/.test(line[i - 1]!))) break; // a comment to the end of the line
    if (ch === '\\' && i === line.length - 1) return { kept, quote, continued: true };
    if (ch === '\\') {
      kept += ch + (line[i + 1] ?? '');
      i++;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    kept += ch;
  }
  return { kept, quote, continued: false };
}

/** The command's words after any leading `NAME=value` assignments, and how many of those there were. */
function splitWords(cmd: string): { words: string[]; assignments: number } {
  const words: string[] = [];
  let cur = '';
  let quote: string | null = null;
  let depth = 0;
  for (const ch of cmd) {
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (/\s/.test(ch) && depth === 0) {
      if (cur) words.push(cur);
      cur = '';
      continue;
    }
    cur += ch;
  }
  if (cur) words.push(cur);
  let assignments = 0;
  while (assignments < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[assignments]!)) assignments++;
  return { words: words.slice(assignments), assignments };
}

/** Commands that set up a machine or run the test suites, not examples of the running service. */
const NOT_EXAMPLES = new Set(['npm', 'createdb', 'kind', 'kubectl']);

/** Whether the process test runs the command: everything but server starts, installs and test runs. */
export function runnable(cmd: string): boolean {
  const { words, assignments } = splitWords(cmd);
  if (words.length === 0) return true; // KEY=$(…), B=…: the examples read them
  if (assignments > 0) return false; // env-prefixed: servers and test runs, not examples
  const [w0, w1, w2] = words;
  if (NOT_EXAMPLES.has(w0!)) return false;
  if (w0 === 'npx' && w1 === 'node' && w2 === '--test') return false;
  return true; // curl, gantry admin, and the set-up they need (mkdir, printf, export)
}

/** The ```js blocks as programs: a block that imports starts one; a block without imports continues the one above, in a scope of its own. */
export function jsPrograms(markdown: string): string[] {
  const programs: string[] = [];
  for (const m of markdown.matchAll(/^```js\n([\s\S]*?)^```/gm)) {
    const code = m[1]!;
    if (/^import /m.test(code)) programs.push(code);
    else {
      assert.ok(programs.length > 0, `a js block without imports continues no program:\n${code}`);
      programs[programs.length - 1] += `{\n${code}}\n`;
    }
  }
  return programs;
}

/** The commands of a page's ```sh deploy blocks, as the image tests compare them with the image. */
export function deployCommands(markdown: string): string {
  return [...markdown.matchAll(/^```sh deploy\n([\s\S]*?)^```/gm)].map((m) => m[1]!).join('\n');
}

/** The first curl command of a page's section (its `## ` heading), as written. */
export function firstCurl(markdown: string, heading: string): string {
  const section = markdown.split(new RegExp(`^## ${heading}$`, 'm'))[1]?.split(/^## /m)[0] ?? '';
  return /^curl .*$/m.exec(section)?.[0] ?? '';
}
