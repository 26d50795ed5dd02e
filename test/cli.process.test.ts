// The gantry command line as a newcomer meets it, through the real process: help, a bare
// `gantry`, unknown commands, options and flags, and JSON arguments that are not JSON. None
// of these needs a server, and none touches the data dir.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runGantry } from './helpers/server.ts';

const parent = mkdtempSync(join(tmpdir(), 'gantry-cli-'));
test.after(() => rmSync(parent, { recursive: true, force: true }));
const dataDir = join(parent, 'data'); // never created by these commands
const env = { GANTRY_DATA_DIR: dataDir, GANTRY_URL: 'http://127.0.0.1:9' };
const gantry = (...args: string[]) => runGantry(args, env, { timeoutMs: 30_000 });

test('gantry --help, -h, help and serve --help print the usage and exit 0', async () => {
  for (const args of [['--help'], ['-h'], ['help'], ['serve', '--help']]) {
    const { code, output } = await gantry(...args);
    assert.equal(code, 0, `${args.join(' ')}:\n${output}`);
    assert.match(output, /^usage: gantry <command>/);
    for (const word of ['serve', 'migrate', 'admin', 'PORT=9000']) assert.match(output, new RegExp(word));
  }
  assert.equal(existsSync(dataDir), false);
});

test('a bare gantry prints the usage and exits 2 instead of starting a server', async () => {
  const { code, output } = await gantry();
  assert.equal(code, 2, output);
  assert.match(output, /^gantry: no command given \(gantry serve starts the server\)/);
  assert.match(output, /usage: gantry <command>/);
  assert.doesNotMatch(output, /listening/);
  assert.equal(existsSync(dataDir), false);
});

test('an unknown command, option or argument is named as such', async () => {
  const cases: [string[], RegExp][] = [
    [['frobnicate'], /gantry: unknown command "frobnicate"/],
    [['--port', '9000'], /gantry: unknown option "--port"/],
    [['serve', '--port', '9000'], /unknown option "--port" for gantry serve: it takes none \(settings come from the environment, e\.g\. PORT=9000 gantry serve\)/],
    [['migrate', 'now'], /gantry migrate takes no arguments, got "now"/],
  ];
  for (const [args, expected] of cases) {
    const { code, output } = await gantry(...args);
    assert.equal(code, 2, `${args.join(' ')}:\n${output}`);
    assert.match(output, expected);
    assert.match(output, /usage: gantry <command>/);
  }
  assert.equal(existsSync(dataDir), false);
});

test('gantry admin: a flag the command does not take is reported as unknown, not as a missing one', async () => {
  const typo = await gantry('admin', 'teams', 'create', '--nme', 'acme', '--owner-email', 'o@acme.io');
  assert.equal(typo.code, 2, typo.output);
  assert.match(typo.output, /unknown flag --nme for gantry admin teams create: it takes --name, --owner-email, --tier/);
  assert.doesNotMatch(typo.output, /missing/);
  assert.match(typo.output, /usage: gantry admin teams/);
  const none = await gantry('admin', 'teams', 'list', '--all');
  assert.equal(none.code, 2, none.output);
  assert.match(none.output, /unknown flag --all for gantry admin teams list: it takes no flags/);
  const two = await gantry('admin', 'topup', 'usr_1', '10', '--key', 'k', '--amount', '3');
  assert.match(two.output, /unknown flags --key, --amount for gantry admin topup: it takes --idempotency-key/);
  const list = await gantry('admin', 'media', 'list', '--typ', 'checkpoint');
  assert.equal(list.code, 2, list.output);
  assert.match(list.output, /unknown flag --typ for gantry admin media list: it takes --type, --source, --query, --sdxl, --json/);
  // an unknown command is still reported as one, whatever its flags
  const cmd = await gantry('admin', 'teams', 'frob', '--x', '1');
  assert.match(cmd.output, /unknown admin command: teams frob/);
  // a missing flag is still reported as missing
  const missing = await gantry('admin', 'teams', 'create', '--name', 'acme');
  assert.match(missing.output, /missing --owner-email/);
});

test('gantry admin: JSON that is not JSON names the argument and shows where it goes wrong', async () => {
  const cut = await gantry('admin', 'models', 'set', '--json', '{"id":"acme/m","title":');
  assert.equal(cut.code, 2, cut.output);
  assert.match(cut.output, /--json is not valid JSON: Unexpected end of JSON input/);
  assert.match(cut.output, /\n {2}\{"id":"acme\/m","title":\n {2} {23}\^ the text ends here/);
  const comma = await gantry('admin', 'gpu', 'product', '--json', '{"id":"p1",, "name":"x"}');
  assert.equal(comma.code, 2, comma.output);
  assert.match(comma.output, /--json is not valid JSON: .*position 11/);
  assert.match(comma.output, /\n {2}\{"id":"p1",, "name":"x"\}\n {2} {11}\^ character 12 of 24/);
  // quotes eaten by the shell: said how to quote
  const bare = await gantry('admin', 'call', 'POST', '/admin/v1/models', '{id:acme}');
  assert.equal(bare.code, 2, bare.output);
  assert.match(bare.output, /the request body \(the argument after the path\) is not valid JSON/);
  assert.match(bare.output, /double quotes: put the whole argument in single quotes/);
});
