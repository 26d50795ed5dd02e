// The README as a front page and the manual behind it (issue 41), checked without a server:
// the README stays short and links every page of the manual, each page links back and to its
// neighbours, every relative link and anchor of every Markdown page resolves, code fences use
// known words (a typo would hide a block from test/readme.process.test.ts), and the examples
// that test runs are still found where it looks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import {
  anchors, examplePages, fences, firstCurl, deployCommands, jsPrograms, links, MANUAL, markdownPages, read, ROOT, runnable,
  SHELL_FENCES, shellCommands,
} from './helpers/doc-pages.ts';

const README = read('README.md');

test('the README is a front page: at most 300 lines, with the two commands and a tour', () => {
  const lines = README.split('\n').length;
  assert.ok(lines <= 300, `README.md has ${lines} lines`);
  const commands = shellCommands(README);
  assert.ok(commands.includes('npm install && npm start') && commands.includes('npm test'), 'the two commands');
  // the tour ends in a chat call, a GPU instance and the console
  const tour = README.split(/^## A five-minute tour$/m)[1]?.split(/^## /m)[0] ?? '';
  for (const what of ['/openai/v1/chat/completions', '/gpu/instance/create', '/console']) assert.ok(tour.includes(what), `the tour shows ${what}`);
});

test('the README links every page of the manual, and each page links back and to every other', () => {
  const missing: string[] = [];
  const readmeLinks = new Set(links(README).map((l) => l.split('#')[0]));
  for (const page of MANUAL) {
    if (!readmeLinks.has(page)) missing.push(`README.md → ${page}`);
    const targets = new Set(links(read(page)).map((l) => normalize(join(dirname(page), l.split('#')[0]!))));
    for (const other of ['README.md', ...MANUAL]) if (other !== page && !targets.has(other)) missing.push(`${page} → ${other}`);
  }
  assert.deepEqual(missing, []);
});

test('every relative link and anchor of every Markdown page resolves', () => {
  const pages = markdownPages();
  assert.ok(pages.includes('README.md') && pages.includes('docs/configuration.md') && pages.includes('src/gateway/README.md'), pages.join(' '));
  const broken: string[] = [];
  for (const page of pages) {
    const text = read(page);
    for (const link of links(text)) {
      if (/^[a-z]+:/.test(link)) continue; // http(s), mailto
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const target = path ? normalize(join(dirname(page), path)) : page;
      if (!existsSync(join(ROOT, target))) broken.push(`${page}: ${link} (no such file)`);
      else if (anchor !== undefined && target.endsWith('.md') && !anchors(read(target)).has(anchor)) broken.push(`${page}: ${link} (no such heading)`);
      else if (anchor !== undefined && statSync(join(ROOT, target)).isDirectory()) broken.push(`${page}: ${link} (an anchor in a directory)`);
    }
    // the specification is not in the repository: a page points at docs/interface-notes.md instead
    for (const m of text.matchAll(/(spec\/compat\.md|spec\/interface\.md)/g)) broken.push(`${page}: ${m[1]} (not in the repository)`);
  }
  assert.deepEqual(broken, []);
});

test('anchors are GitHub\'s: lower case, punctuation dropped, repeats numbered', () => {
  assert.deepEqual([...anchors('# A page\n## Replicas and `GANTRY_RUN_JOBS`\n```sh\n# not a heading\n```\n## The `sim` driver\n## Notes\n## Notes\n')],
    ['a-page', 'replicas-and-gantry_run_jobs', 'the-sim-driver', 'notes', 'notes-1']);
  assert.deepEqual(links('[a](b.md#c) `[not](a link)` ![img](d.png)\n```\n[no](e.md)\n```\n'), ['b.md#c', 'd.png']);
});

test('code fences of the README and docs/ use known words: shell blocks run unless marked, js blocks always run', () => {
  const bad: string[] = [];
  for (const page of examplePages()) {
    for (const f of fences(read(page))) {
      const where = `${page}:${f.line}: \`\`\`${f.lang} ${f.word}`.trim();
      if (['sh', 'bash', 'shell'].includes(f.lang) && !(f.word in SHELL_FENCES)) {
        bad.push(`${where}: a shell fence is bare or one of ${Object.keys(SHELL_FENCES).filter(Boolean).join(', ')}`);
      }
      if (['js', 'javascript', 'mjs', 'ts', 'typescript'].includes(f.lang) && (f.lang !== 'js' || f.word)) bad.push(`${where}: write \`\`\`js, the fence whose blocks run`);
      if (f.lang === '' && f.word) bad.push(`${where}: a word without a language`);
    }
  }
  assert.deepEqual(bad, []);
});

test('the blocks the process test runs are still found where it looks', () => {
  const commands = examplePages().flatMap((p) => shellCommands(read(p)).filter(runnable));
  const admin = commands.filter((c) => /^(npx )?gantry admin/.test(c));
  const curls = commands.filter((c) => /(^|\$\()curl /.test(c));
  assert.ok(admin.length >= 12 && curls.length >= 12, `found ${admin.length} admin and ${curls.length} curl commands: has a page's layout changed?`);
  const programs = examplePages().flatMap((p) => jsPrograms(read(p)));
  assert.ok(programs.length >= 4, `found ${programs.length} js programs`);
  assert.ok(shellCommands(README).filter(runnable).length >= 8, 'the README\'s tour runs');
  // what the image tests take from the pages (test/helpers/gantry-image.ts, test/container-image.image.test.ts)
  assert.match(firstCurl(README, 'A five-minute tour'), /^curl -s \$B\/openapi\/v1\/billing\/balance\/detail -H "Authorization: Bearer \$KEY"$/);
  const deploy = deployCommands(read('docs/production.md'));
  assert.match(deploy, /^podman build --format docker -t gantry \.\s/m);
  assert.match(deploy, /^podman run -d .*-p \d+:8080 .*-v [\w-]+:\/var\/lib\/gantry /m);
});

test('shell blocks are read as commands (quotes, continuations and comments), and only examples run', () => {
  assert.deepEqual(shellCommands([
    '```sh', '# a comment with an apostrophe\'s', 'A=$(node -p "require(\'./x\').y")', 'curl -s $B/x \\', '  -d \'{"a":1}\'   # trailing',
    'npx gantry admin models set --json \'{"id":"m",', '  "title":"T"}\'', 'npm start', '```', '```json', '{"not": "sh"}', '```',
    '```sh deploy', 'podman build .', '```',
  ].join('\n')), ['A=$(node -p "require(\'./x\').y")', 'curl -s $B/x    -d \'{"a":1}\'', 'npx gantry admin models set --json \'{"id":"m",\n  "title":"T"}\'', 'npm start']);
  assert.equal(runnable('DATABASE_URL=postgres://x REDIS_URL=redis://y PORT=8080 npm start'), false);
  assert.equal(runnable('KEY=$(node -p "require(\'./data/credentials.json\').apiKey")'), true);
  assert.equal(runnable('B=http://127.0.0.1:8080'), true);
  assert.equal(runnable('mkdir -p models/vae && printf x > models/vae/a.safetensors'), true);
  assert.equal(runnable('npx node --test src/drivers/docker/driver.engines.test.ts'), false);
  assert.equal(runnable('createdb -h 127.0.0.1 -U postgres gantry'), false);
  assert.deepEqual(jsPrograms(['```js', "import a from 'a';", 'const x = 1;', '```', 'text', '```js', 'const x = 2;', '```', '```js', "import b from 'b';", '```'].join('\n')),
    ["import a from 'a';\nconst x = 1;\n{\nconst x = 2;\n}\n", "import b from 'b';\n"]);
  assert.deepEqual(fences('```sh on-a-gpu-server\nx\n```\n  ```caddy\n  y\n  ```\n'), [{ lang: 'sh', word: 'on-a-gpu-server', line: 1 }, { lang: 'caddy', word: '', line: 4 }]);
});

test('test commands shown in the pages run the pinned Node (npx node --test), not the machine\'s', () => {
  const bare: string[] = [];
  for (const page of ['DEVELOPERS.md', ...examplePages()]) {
    for (const m of read(page).matchAll(/([A-Za-z]*)\s?node --test (?:--\S+ )*(?:src|test|"?\$|<)/g)) {
      if (m[1] !== 'npx') bare.push(`${page}: ${m[0]}`);
    }
  }
  assert.deepEqual(bare, [], 'a bare `node --test <files>` runs the machine\'s Node (20 here), which cannot run TypeScript: write npx node --test');
});
