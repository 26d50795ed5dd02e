// `gantry admin …`: the operator CLI. It calls the operator API of a running Gantry, so it
// works the same against the embedded store (which one process owns) and a PostgreSQL fleet.
// The exception is `token rotate`, the way back when the operator token is lost: it cannot
// call the API without a token, so it opens the store itself.
import type { Config } from '../config.ts';
import type { Store } from '../store/db.ts';
import { credentialsPath, readCredentials, saveOperatorToken, storeOf, storeWords } from './credentials.ts';
import { unitsToUsdText, usdToUnits } from '../lib/money.ts';
// The store's modules load in token rotate only: every other command is an HTTP client, and
// a call starts with what it needs (bench/README.md, "The CLI's start").

type Env = Record<string, string | undefined>;

/** Each command group's lines of the help; `gantry admin <group>` alone prints its own. */
const GROUP_HELP: Record<string, string> = {
  teams: `  teams list                                   teams get <userId>
  teams create --name N --owner-email E [--tier T1..T5]
  teams suspend <userId>                       teams resume <userId>`,
  members: `  members list <userId>                        members add <userId> --email E --role R [--phone P] [--remark-name N]
  members role <memberId> <role>               members disable <memberId>`,
  keys: '  keys create <memberId> --name N              keys revoke <keyId>',
  operators: `  operators list                               operator accounts (invited and active)
  operators add <email>                        make the address an operator account: a link by e-mail (24 h);
                                               two-factor sign-in is required before its operator views open
  operators revoke <grantId>                   it is an operator no more: its console sessions end at once`,
  topup: '  topup <userId> <dollars> [--idempotency-key K]       e.g. topup usr_… 10.50',
  voucher: '  voucher <userId> <dollars> [--idempotency-key K]',
  'credit-limit': '  credit-limit <userId> <dollars>',
  tier: '  tier <userId> <T1..T5>',
  budgets: `  budgets <userId>                             every member's budget and its keys', with this month's spend
  budgets member <memberId> <dollars|unlimited> [--monthly]   a member's budget: once, or each month with --monthly
  budgets key <keyId> <dollars|unlimited> [--monthly]         an API key's budget (any member's, the Owner's too)`,
  models: '  models list                                  models set --json \'{…}\'    (body of POST /admin/v1/models)',
  'team-models': '  team-models <userId> [--enabled id,id | --all]',
  quotas: `  quotas set --json '{…}'                      (body of POST /admin/v1/quotas: a model's quota definition)
  quotas override <userId> --model M --type RPM|TPM|IPM --quota N|none   (the model needs a definition of that type)`,
  gpu: `  gpu catalogue                                clusters, products, inventory and GPUs in use
  gpu cluster --id ID --name N [--region R] [--network-storage] [--instance-network] [--storage-price D]
                                               D: network storage price, dollars per GB-month (shown, not billed)
  gpu product --json '{…}'                     (body of POST /admin/v1/gpu/products)
  gpu inventory <productId> <clusterId> <totalGpus>
  gpu reclaim <instanceId> [--notice-seconds N]   spot reclaim: notified now, stopped after N s
  gpu migrate <instanceId> <clusterId>`,
  serverless: `  serverless limits [get]                      the ranges endpoint create/update accept
  serverless limits set --<field> <value> …   change some: --maxGPUNum 4 --minWorkerNum 0 --cudaVersionList 12.1,12.2
                                               (fields as GET shows them; the others are kept; min ≤ max)`,
  storage: `  storage <userId>                             a team's stored files and media models against its quotas
  storage <userId> set [--files-gb N] [--files-count N] [--media-gb N] [--media-count N]
                                               override some (GiB, decimals allowed; default: back to the configured one)`,
  media: `  media import <folder|manifest.json>          public media models: a manifest {"models":[{"file", "type", …}]},
                                               or a folder's manifest.json, or files under <type>/ subfolders
  media list [--type T[,T]] [--source S] [--query Q] [--sdxl true|false] [--json]
                                               the public media models, every page: id, type, name, source, size, sha256
  media delete <id>                            remove a public media model and its file`,
  call: '  call <METHOD> <path> [json]                  any operator API call',
  token: '  token rotate                                 replace the operator token (opens the store itself, see below)',
};

const FOOTER = `Amounts typed are dollars (10.50, $10.50; at most 4 decimals: Gantry's unit is $0.0001, and a
finer amount is refused, not rounded). The JSON printed is the API's, in units of 1/10000 USD;
a line on stderr says what was done in dollars. The server is GANTRY_URL (default http://HOST:PORT of this
config); the token is GANTRY_ADMIN_TOKEN or adminToken from <data dir>/credentials.json (or the
store's own credentials-<store>.json when credentials.json holds another store's).

token rotate needs no server and no token, only access to the database: DATABASE_URL, or the
embedded store in the data dir (GANTRY_DATA_DIR), which a running server holds: stop it first.
It prints the new token once and saves it in <data dir>/credentials.json; running servers
accept the new token, and refuse the old one, within 1 s.`;

const USAGE = `usage: gantry admin <command> [args] [--flag value …]

${Object.values(GROUP_HELP).join('\n')}

${FOOTER}`;

function groupUsage(group: string): string {
  return `usage: gantry admin ${group} …\n\n${GROUP_HELP[group]}\n\n${FOOTER}`;
}

/**
 * The help a command asks for, if it asks: none, `help`, `--help` anywhere, `help <group>`, or
 * a command group without its subcommand (`gantry admin gpu`).
 */
export function helpFor(args: string[]): string | undefined {
  const pos = args.filter((a) => !a.startsWith('--'));
  const group = pos[0] === 'help' ? pos[1] : pos[0];
  const known = group !== undefined && group in GROUP_HELP;
  if (args.length === 0 || pos[0] === 'help' || args.includes('--help')) return known ? groupUsage(group) : USAGE;
  if (known && pos.length === 1) return groupUsage(group);
  return undefined;
}

function parseArgs(args: string[]): { pos: string[]; flags: Record<string, string> } {
  const pos: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.startsWith('--')) {
      const next = args[i + 1];
      if (next === undefined || next.startsWith('--')) flags[a.slice(2)] = 'true';
      else {
        flags[a.slice(2)] = next;
        i++;
      }
    } else pos.push(a);
  }
  return { pos, flags };
}

/**
 * The flags each command takes (`--help` aside), by the command's words; a command missing
 * here takes none. `serverless limits set` takes any field of the limits (the server checks them).
 */
const COMMAND_FLAGS: Record<string, string[] | 'any'> = {
  'teams create': ['name', 'owner-email', 'tier'],
  'members add': ['email', 'role', 'phone', 'remark-name'],
  'keys create': ['name'],
  topup: ['idempotency-key'],
  voucher: ['idempotency-key'],
  'models set': ['json'],
  'team-models': ['enabled', 'all'],
  'quotas set': ['json'],
  'quotas override': ['model', 'type', 'quota'],
  'gpu cluster': ['id', 'name', 'region', 'network-storage', 'instance-network', 'storage-price'],
  'gpu product': ['json'],
  'gpu reclaim': ['notice-seconds'],
  'serverless limits set': 'any',
  'storage set': ['files-gb', 'files-count', 'media-gb', 'media-count'],
  'budgets member': ['monthly'],
  'budgets key': ['monthly'],
  'media list': ['type', 'source', 'query', 'sdxl', 'json'],
};

/** The words that name a command (its group, and its verb where the group has several). */
function commandName(pos: string[]): string {
  const [group, verb, a1] = pos;
  if (group === 'storage' && (a1 === undefined || a1 === 'set')) return a1 === 'set' ? 'storage set' : 'storage';
  if (group === 'serverless' && verb === 'limits' && (a1 === undefined || a1 === 'get' || a1 === 'set')) return a1 === 'set' ? 'serverless limits set' : 'serverless limits';
  if (group === 'budgets') return verb === 'member' || verb === 'key' ? `budgets ${verb}` : 'budgets';
  if (group === 'storage' || group === 'serverless') return pos.join(' '); // not a command
  if (['topup', 'voucher', 'credit-limit', 'tier', 'team-models', 'call'].includes(group ?? '')) return group!;
  return [group, verb].filter((w) => w !== undefined).join(' ');
}

/** A flag the command does not take is named as such (not reported later as a missing one). */
export function checkFlags(pos: string[], flags: Record<string, string>): void {
  const name = commandName(pos);
  const allowed = COMMAND_FLAGS[name] ?? [];
  if (allowed === 'any') return;
  const unknown = Object.keys(flags).filter((f) => f !== 'help' && !allowed.includes(f));
  if (!unknown.length) return;
  const group = pos[0];
  throw new Error(`unknown flag${unknown.length > 1 ? 's' : ''} ${unknown.map((f) => `--${f}`).join(', ')} for gantry admin ${name}: `
    + `${allowed.length ? `it takes ${allowed.map((f) => `--${f}`).join(', ')}` : 'it takes no flags'}\n\n${group && group in GROUP_HELP ? groupUsage(group) : USAGE}`);
}

/**
 * A JSON argument, parsed; when it is not JSON the error names the argument and shows where
 * it goes wrong (a caret under the character), not only V8's "Unexpected end of JSON input".
 */
export function parseJsonArg(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const reason = (e as Error).message;
    const m = /at position (\d+)/.exec(reason);
    const at = m ? Number(m[1]) : /end of JSON input/.test(reason) ? text.length : undefined;
    const lines = [`${what} is not valid JSON: ${reason.replace(/^SyntaxError: /, '')}`];
    if (at !== undefined) {
      // one line of the argument around the place, and a caret under it
      const start = Math.max(0, at - 60);
      const shown = text.slice(start, at + 20).replace(/[\r\n\t]/g, ' ');
      lines.push(`  ${start > 0 ? '…' : ''}${shown}`, `  ${' '.repeat(at - start + (start > 0 ? 1 : 0))}^ ${at >= text.length ? 'the text ends here' : `character ${at + 1} of ${text.length}`}`);
    }
    if (/^[^{["]/.test(text.trim()) || (text.trim().startsWith('{') && !text.includes('"'))) {
      lines.push('  (keys and strings need double quotes: put the whole argument in single quotes for the shell)');
    }
    throw new Error(lines.join('\n'), { cause: e });
  }
}

function needIn(v: string | undefined, what: string, group?: string): string {
  if (!v) throw new Error(`missing ${what}\n\n${group && group in GROUP_HELP ? groupUsage(group) : USAGE}`);
  return v;
}

/** The commands toRequest serves, by commandName (an unknown one is reported as such, not by its flags). */
const KNOWN_COMMANDS = new Set([
  'teams list', 'teams get', 'teams create', 'teams suspend', 'teams resume',
  'members list', 'members add', 'members role', 'members disable', 'keys create', 'keys revoke',
  'topup', 'voucher', 'credit-limit', 'tier', 'models list', 'models set', 'team-models', 'quotas set', 'quotas override',
  'gpu catalogue', 'gpu cluster', 'gpu product', 'gpu inventory', 'gpu reclaim', 'gpu migrate',
  'serverless limits', 'serverless limits set', 'storage', 'storage set', 'media delete', 'call',
  'budgets', 'budgets member', 'budgets key', 'operators list', 'operators add', 'operators revoke',
]);

type ApiRequest = {
  method: string;
  path: string;
  body?: unknown;
  /** What was done, in dollars, for the person (stderr), from the answer; the JSON keeps the API's units. */
  said?: (answer: Json) => string;
};
// biome-ignore lint/suspicious/noExplicitAny: an API answer, as the route's schema says it
type Json = any;

/** A command as its group's builder reads it: the words after the group, the flags, and `need` (a missing one is refused naming it). */
interface Command {
  verb: string | undefined;
  a1: string | undefined;
  a2: string | undefined;
  pos: string[];
  flags: Record<string, string>;
  need(v: string | undefined, what: string): string;
}

const e = encodeURIComponent;

function teamsRequest({ verb, a1, flags, need }: Command): ApiRequest | undefined {
  if (verb === 'list') return { method: 'GET', path: '/admin/v1/teams' };
  if (verb === 'get') return { method: 'GET', path: `/admin/v1/teams/${e(need(a1, 'userId'))}` };
  if (verb === 'create') {
    return { method: 'POST', path: '/admin/v1/teams', body: { name: need(flags.name, '--name'), ownerEmail: need(flags['owner-email'], '--owner-email'), ...(flags.tier ? { tier: flags.tier } : {}) } };
  }
  if (verb === 'suspend' || verb === 'resume') {
    return { method: 'POST', path: `/admin/v1/teams/${e(need(a1, 'userId'))}/suspend`, body: { suspended: verb === 'suspend' } };
  }
  return undefined;
}

function membersRequest({ verb, a1, a2, flags, need }: Command): ApiRequest | undefined {
  if (verb === 'list') return { method: 'GET', path: `/admin/v1/teams/${e(need(a1, 'userId'))}/members` };
  if (verb === 'add') {
    return {
      method: 'POST', path: `/admin/v1/teams/${e(need(a1, 'userId'))}/members`,
      body: { email: need(flags.email, '--email'), role: need(flags.role, '--role'), ...(flags.phone ? { phone: flags.phone } : {}), ...(flags['remark-name'] ? { remarkName: flags['remark-name'] } : {}) },
    };
  }
  if (verb === 'role') return { method: 'POST', path: `/admin/v1/members/${e(need(a1, 'memberId'))}/role`, body: { role: need(a2, 'role') } };
  if (verb === 'disable') return { method: 'POST', path: `/admin/v1/members/${e(need(a1, 'memberId'))}/disable`, body: {} };
  return undefined;
}

function operatorsRequest({ verb, a1, need }: Command): ApiRequest | undefined {
  if (verb === 'list') return { method: 'GET', path: '/admin/v1/operators' };
  if (verb === 'add') {
    const email = need(a1, 'email');
    return { method: 'POST', path: '/admin/v1/operators', body: { email }, said: (a) => `An operator link was sent to ${a.email} (valid 24 hours; follow it, then turn on two-factor sign-in).` };
  }
  if (verb === 'revoke') return { method: 'DELETE', path: `/admin/v1/operators/${e(need(a1, 'grantId'))}` };
  return undefined;
}

function keysRequest({ verb, a1, flags, need }: Command): ApiRequest | undefined {
  if (verb === 'create') return { method: 'POST', path: `/admin/v1/members/${e(need(a1, 'memberId'))}/keys`, body: { name: need(flags.name, '--name') } };
  if (verb === 'revoke') return { method: 'POST', path: `/admin/v1/keys/${e(need(a1, 'keyId'))}/revoke`, body: {} };
  return undefined;
}

/** A top-up or a voucher: once, whatever the retries (the idempotency key a retry of the same command would repeat). */
function creditRequest(kind: 'topups' | 'vouchers') {
  return ({ verb, a1, flags, need }: Command): ApiRequest => {
    const team = need(verb, 'userId');
    const units = usdToUnits(need(a1, 'amount (dollars)'), 'the amount');
    return {
      method: 'POST', path: `/admin/v1/teams/${e(team)}/${kind}`,
      body: { amount: String(units), idempotencyKey: flags['idempotency-key'] ?? `cli-${Date.now()}-${Math.random().toString(36).slice(2)}` },
      said: (a) => postedLine(kind === 'topups' ? 'top-up' : 'voucher', team, a),
    };
  };
}

/** A top-up or voucher as a person reads it: how much, and what part repaid a debt. */
function postedLine(what: string, team: string, a: Json): string {
  if (a.duplicate) return `This ${what} was posted before (the same idempotency key): nothing was added this time.`;
  const repaid = BigInt(a.debtAmount ?? 0) < 0n ? `, of which ${unitsToUsdText(-BigInt(a.debtAmount))} repaid what the team owed` : '';
  return `Added a ${what} of ${unitsToUsdText(a.amount)} to ${team}${repaid}.`;
}

function modelsRequest({ verb, flags, need }: Command): ApiRequest | undefined {
  if (verb === 'list') return { method: 'GET', path: '/admin/v1/models' };
  if (verb === 'set') return { method: 'POST', path: '/admin/v1/models', body: parseJsonArg(need(flags.json, '--json'), '--json') };
  return undefined;
}

function teamModelsRequest({ verb, flags, need }: Command): ApiRequest {
  if (!flags.enabled && !flags.all) return { method: 'GET', path: `/admin/v1/teams/${e(need(verb, 'userId'))}/models` };
  return { method: 'PUT', path: `/admin/v1/teams/${e(need(verb, 'userId'))}/models`, body: { enabledModels: flags.all ? null : flags.enabled!.split(',').filter(Boolean) } };
}

function quotasRequest({ verb, a1, flags, need }: Command): ApiRequest | undefined {
  if (verb === 'set') return { method: 'POST', path: '/admin/v1/quotas', body: parseJsonArg(need(flags.json, '--json'), '--json') };
  if (verb !== 'override') return undefined;
  const quota = need(flags.quota, '--quota');
  return {
    method: 'PUT', path: `/admin/v1/teams/${e(need(a1, 'userId'))}/quotas`,
    body: { model: need(flags.model, '--model'), quotaType: need(flags.type, '--type'), currentQuota: quota === 'none' ? null : quota },
  };
}

function gpuRequest({ verb, a1, a2, pos, flags, need }: Command): ApiRequest | undefined {
  if (verb === 'catalogue') return { method: 'GET', path: '/admin/v1/gpu/catalogue' };
  if (verb === 'cluster') {
    return {
      method: 'POST', path: '/admin/v1/gpu/clusters',
      body: {
        id: need(flags.id, '--id'), name: need(flags.name, '--name'), ...(flags.region ? { region: flags.region } : {}),
        supportNetworkStorage: flags['network-storage'] === 'true', supportInstanceNetwork: flags['instance-network'] === 'true',
        ...(flags['storage-price'] ? { storagePrice: String(usdToUnits(flags['storage-price'], '--storage-price')) } : {}),
      },
    };
  }
  if (verb === 'product') return { method: 'POST', path: '/admin/v1/gpu/products', body: parseJsonArg(need(flags.json, '--json'), '--json') };
  if (verb === 'inventory') {
    return { method: 'PUT', path: `/admin/v1/gpu/products/${e(need(a1, 'productId'))}/inventory/${e(need(a2, 'clusterId'))}`, body: { totalGpus: Number(need(pos[4], 'totalGpus')) } };
  }
  if (verb === 'reclaim') {
    return { method: 'POST', path: `/admin/v1/gpu/instances/${e(need(a1, 'instanceId'))}/reclaim`, body: flags['notice-seconds'] ? { noticeSeconds: Number(flags['notice-seconds']) } : {} };
  }
  if (verb === 'migrate') return { method: 'POST', path: `/admin/v1/gpu/instances/${e(need(a1, 'instanceId'))}/migrate`, body: { clusterId: need(a2, 'clusterId') } };
  return undefined;
}

function serverlessRequest({ verb, a1, flags }: Command): ApiRequest | undefined {
  if (verb !== 'limits') return undefined;
  if (a1 === undefined || a1 === 'get') return { method: 'GET', path: '/admin/v1/serverless/limits' };
  if (a1 !== 'set') return undefined;
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(flags)) {
    // a list is comma-separated (empty: none); a number is sent as one, anything else as given (the server names what is wrong)
    body[k] = k === 'cudaVersionList' ? v.split(',').map((x) => x.trim()).filter(Boolean) : /^-?\d+$/.test(v) ? Number(v) : v;
  }
  if (!Object.keys(body).length) throw new Error(`serverless limits set: give at least one --<field> <value>\n\n${groupUsage('serverless')}`);
  return { method: 'PUT', path: '/admin/v1/serverless/limits', body };
}

function storageRequest({ verb, a1, flags, need }: Command): ApiRequest | undefined {
  const path = `/admin/v1/teams/${e(need(verb, 'userId'))}`;
  if (a1 === undefined) return { method: 'GET', path: `${path}/storage` };
  if (a1 !== 'set') return undefined;
  const body: Record<string, number | null> = {};
  const flag = (name: string, field: string, scale: number) => {
    const v = flags[name];
    if (v === undefined) return;
    if (v === 'default') body[field] = null;
    else if (/^\d+(\.\d+)?$/.test(v)) body[field] = Math.round(Number(v) * scale);
    else throw new Error(`--${name} takes a number or default, got ${v}\n\n${groupUsage('storage')}`);
  };
  flag('files-gb', 'filesMaxBytes', 2 ** 30);
  flag('files-count', 'filesMaxCount', 1);
  flag('media-gb', 'mediaMaxBytes', 2 ** 30);
  flag('media-count', 'mediaMaxCount', 1);
  if (!Object.keys(body).length) throw new Error(`storage set: give at least one of --files-gb, --files-count, --media-gb, --media-count\n\n${groupUsage('storage')}`);
  return { method: 'PUT', path: `${path}/storage-quota`, body };
}

/** `budgets …`: read a team's, or set a member's or a key's, in dollars (the API takes units). */
function budgetsRequest({ verb, a1, a2, flags, need }: Command): ApiRequest {
  if (verb !== 'member' && verb !== 'key') {
    const team = need(verb, 'userId');
    return { method: 'GET', path: `/admin/v1/teams/${e(team)}/budgets`, said: budgetLines };
  }
  const id = need(a1, verb === 'member' ? 'memberId' : 'keyId');
  const amount = need(a2, 'budget (dollars, or unlimited)');
  const monthly = flags.monthly === 'true';
  if (amount === 'unlimited' && monthly) throw new Error('an unlimited budget has no --monthly: give dollars, or leave --monthly out');
  const units = amount === 'unlimited' ? undefined : usdToUnits(amount, 'the budget');
  const body = units === undefined ? { budget_type: 'Unlimited' }
    : { budget_type: monthly ? 'Recurring' : 'One-time', budget_limit: String(units), ...(monthly ? { cycle: 'Monthly' } : {}) };
  const what = units === undefined ? 'unlimited' : `${unitsToUsdText(units)} ${monthly ? 'each month' : 'in all'}`;
  return {
    method: 'PUT', path: `/admin/v1/${verb === 'member' ? 'members' : 'keys'}/${e(id)}/budget`, body,
    said: () => `The budget of ${verb} ${id} is now ${what}.`,
  };
}

/** A budget as a person reads it: its kind, limit, spend and what is left, in dollars. */
function budgetText(b: Json): string {
  if (b.budget_type === 'Unlimited') return 'unlimited';
  const per = b.budget_type === 'Recurring' ? ' a month' : ' in all';
  return `${unitsToUsdText(String(b.budget_limit))}${per}, ${unitsToUsdText(String(b.used))} used, ${unitsToUsdText(String(b.remaining))} left`;
}

function budgetLines(a: Json): string {
  return (a.budgets as Json[]).flatMap((m) => [
    `${m.email} (${m.role}, ${m.member_id}): ${budgetText(m)}`,
    ...(m.keys as Json[]).map((k) => `  key ${k.key_name} (${k.key_id}): ${budgetText(k)}`),
  ]).join('\n');
}

/** Each command group's builder of its API call; undefined: no command of the group has these words. */
const REQUESTS: Record<string, (c: Command) => ApiRequest | undefined> = {
  teams: teamsRequest,
  members: membersRequest,
  keys: keysRequest,
  operators: operatorsRequest,
  topup: creditRequest('topups'),
  voucher: creditRequest('vouchers'),
  'credit-limit': ({ verb, a1, need }) => {
    const team = need(verb, 'userId');
    const units = usdToUnits(need(a1, 'amount (dollars)'), 'the credit limit');
    return { method: 'PUT', path: `/admin/v1/teams/${e(team)}/credit-limit`, body: { creditLimit: String(units) }, said: () => `The credit limit of ${team} is now ${unitsToUsdText(units)}.` };
  },
  tier: ({ verb, a1, need }) => ({ method: 'PUT', path: `/admin/v1/teams/${e(need(verb, 'userId'))}/tier`, body: { tier: need(a1, 'tier') } }),
  models: modelsRequest,
  'team-models': teamModelsRequest,
  quotas: quotasRequest,
  gpu: gpuRequest,
  serverless: serverlessRequest,
  storage: storageRequest,
  budgets: budgetsRequest,
  media: ({ verb, a1, need }) => (verb === 'delete' ? { method: 'DELETE', path: `/admin/v1/media/models/${e(need(a1, 'id'))}` } : undefined),
  call: ({ verb, a1, a2, need }) => ({ method: need(verb, 'METHOD').toUpperCase(), path: need(a1, 'path'), ...(a2 ? { body: parseJsonArg(a2, 'the request body (the argument after the path)') } : {}) }),
};

/** Map a CLI command to one operator API call. */
export function toRequest(args: string[]): ApiRequest {
  const { pos, flags } = parseArgs(args);
  const [group, verb, a1, a2] = pos;
  if (KNOWN_COMMANDS.has(commandName(pos))) checkFlags(pos, flags);
  const build = group !== undefined && Object.hasOwn(REQUESTS, group) ? REQUESTS[group] : undefined;
  const request = build?.({ verb, a1, a2, pos, flags, need: (v, what) => needIn(v, what, group) });
  if (request) return request;
  throw new Error(`unknown admin command: ${pos.join(' ') || '(none)'}\n\n${group && group in GROUP_HELP ? groupUsage(group) : USAGE}`);
}

export async function runAdminCli(args: string[], env: Env, config: Config): Promise<number> {
  const help = helpFor(args);
  if (help !== undefined) {
    process.stdout.write(help + '\n');
    return 0;
  }
  if (args[0] === 'token') {
    if (args[1] === 'rotate' && args.length === 2) return rotateToken(config);
    process.stderr.write(`unknown admin command: ${args.join(' ')}\n\n${USAGE}\n`);
    return 2;
  }
  const mediaImport = args[0] === 'media' && args[1] === 'import';
  if (mediaImport && args.length !== 3) {
    process.stderr.write(`usage: gantry admin media import <folder|manifest.json>\n\n${groupUsage('media')}\n`);
    return 2;
  }
  // `media list` follows every page itself (and prints lines), like `media import` it is more than one call
  const mediaList = args[0] === 'media' && args[1] === 'list';
  const listFlags = mediaList ? parseArgs(args.slice(2)) : undefined;
  if (listFlags?.pos.length) {
    process.stderr.write(`gantry admin media list takes only flags, got ${listFlags.pos.join(' ')}\n\n${groupUsage('media')}\n`);
    return 2;
  }
  try {
    if (listFlags) checkFlags(['media', 'list'], listFlags.flags);
  } catch (e) {
    process.stderr.write((e as Error).message + '\n');
    return 2;
  }
  let req: ReturnType<typeof toRequest> | undefined;
  try {
    if (!mediaImport && !mediaList) req = toRequest(args);
  } catch (e) {
    process.stderr.write((e as Error).message + '\n');
    return 2;
  }
  const base = env.GANTRY_URL ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
  let token = env.GANTRY_ADMIN_TOKEN;
  const store = storeOf(config.databaseUrl);
  const credPath = credentialsPath(config.dataDir, store);
  if (!token) {
    try {
      token = readCredentials(config.dataDir, store)?.adminToken;
    } catch (e) {
      process.stderr.write(`${(e as Error).message}\n`);
      return 2;
    }
  }
  if (!token) {
    process.stderr.write(`no operator token: set GANTRY_ADMIN_TOKEN or run from the directory holding ${credPath}\n`);
    return 2;
  }
  if (listFlags) {
    const { runMediaList } = await import('./media-list.ts');
    return runMediaList(listFlags.flags, base, token, (line) => process.stdout.write(line + '\n'));
  }
  if (!req) {
    const { runMediaImport } = await import('./media-import.ts');
    return runMediaImport(args[2]!, base, token, (line) => process.stdout.write(line + '\n'));
  }
  return callApi(base, token, req);
}

/** One operator API call: its answer on stdout (pretty JSON), what was done in dollars on stderr; exit 0 on a 2xx. */
async function callApi(base: string, token: string, req: ApiRequest): Promise<number> {
  const res = await fetch(base + req.path, {
    method: req.method,
    headers: { authorization: `Bearer ${token}`, ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(req.body !== undefined ? { body: JSON.stringify(req.body) } : {}),
  }).catch((e: Error) => {
    process.stderr.write(`cannot reach Gantry at ${base}: ${e.message}\n`);
    return null;
  });
  if (!res) return 1;
  const text = await res.text();
  let answer: Json;
  try {
    answer = JSON.parse(text);
    process.stdout.write(JSON.stringify(answer, null, 2) + '\n');
  } catch {
    process.stdout.write(text + '\n');
  }
  const ok = res.ok;
  // for the person, beside the JSON a script reads (stdout stays the API's answer)
  if (ok && req.said && answer !== undefined) process.stderr.write(req.said(answer) + '\n');
  return ok ? 0 : 1;
}


const ROTATE = 'gantry admin token rotate';

/** `token rotate`: a new operator token, straight into the store; printed once and saved. */
async function rotateToken(config: Config): Promise<number> {
  const fail = (message: string): number => {
    process.stderr.write(`${ROTATE}: ${message}\n`);
    return 1;
  };
  const [{ DataDirLockedError }, { holdsDatabase }, { DataDirError, ensurePrivateDir }, { explainConnectError }] = await Promise.all([
    import('../store/data-dir-lock.ts'), import('../store/pglite-template.ts'), import('../lib/private-files.ts'), import('../store/pg-connect.ts'),
  ]);
  // Never create a store here: an empty data dir has no token to replace.
  if (!config.databaseUrl && !holdsDatabase(config.dataDir)) {
    return fail(`there is no embedded store in ${config.dataDir}. Point GANTRY_DATA_DIR (or DATABASE_URL) at the store your server uses; `
      + 'a first start creates the operator token.');
  }
  // Loaded here only: every other admin command is an HTTP client and starts without the store.
  const [{ openStore }, { systemClock }, { rotateOperatorToken, getOperatorTokenHash }, { standaloneCtx }, { sha256Hex }] = await Promise.all([
    import('../store/db.ts'), import('../lib/clock.ts'), import('../domain/operator-token.ts'), import('../domain/context.ts'), import('../lib/ids.ts'),
  ]);
  let store: Store;
  try {
    ensurePrivateDir(config.dataDir); // before the new token is committed: it is saved there
    store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, sharedBuffers: config.pgliteSharedBuffers, poolSize: 1, command: 'admin token rotate' });
  } catch (e) {
    if (e instanceof DataDirLockedError) {
      return fail(`${e.message} Stop the server, run this command again, then start the server: it will accept only the new token.`);
    }
    if (e instanceof DataDirError) return fail(e.message);
    throw e;
  }
  let token: string;
  let replacedHash: string;
  try {
    const ctx = standaloneCtx(store.db, systemClock);
    replacedHash = await getOperatorTokenHash(ctx); // which saved token this rotation replaces (credentials.ts)
    token = await rotateOperatorToken(ctx);
  } catch (e) {
    const unreachable = config.databaseUrl ? explainConnectError(e, config.databaseUrl) : undefined;
    return fail(`nothing was changed: ${unreachable ?? (e as Error).message}`);
  } finally {
    await store.close().catch(() => {}); // the new token is committed: it must be shown whatever happens here
  }
  const lines = ['Rotated the operator token. The new token is shown once:', `  adminToken    ${token}`];
  let code = 0;
  const storeId = storeOf(config.databaseUrl);
  try {
    const saved = saveOperatorToken(config.dataDir, storeId, token, (held) => sha256Hex(held) === replacedHash);
    lines.push(`Saved to ${saved.path} (mode 0600).`);
    if (saved.keptOther) lines.push(`${saved.keptOther.path} holds the credentials of ${storeWords(saved.keptOther.store, config.dataDir)} and was left as it is.`);
  } catch (e) {
    lines.push(`Could not save it to ${credentialsPath(config.dataDir, storeId)} (${(e as Error).message}): copy it now.`);
    code = 1;
  }
  lines.push(config.databaseUrl
    ? 'Running servers accept only this token within 1 s (GANTRY_KEY_CACHE_TTL_MS).'
    : 'Start the server: it accepts only this token.');
  process.stdout.write(lines.join('\n') + '\n');
  return code;
}
