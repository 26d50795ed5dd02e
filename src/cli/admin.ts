// `gantry admin …`: the operator CLI. It calls the operator API of a running Gantry, so it
// works the same against the embedded store (which one process owns) and a PostgreSQL fleet.
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.ts';

type Env = Record<string, string | undefined>;

const USAGE = `usage: gantry admin <command> [args] [--flag value …]

  teams list                                   teams get <userId>
  teams create --name N --owner-email E [--tier T1..T5]
  teams suspend <userId>                       teams resume <userId>
  members list <userId>                        members add <userId> --email E --role R [--phone P] [--remark-name N]
  members role <memberId> <role>               members disable <memberId>
  keys create <memberId> --name N              keys revoke <keyId>
  topup <userId> <amountUnits> [--idempotency-key K]
  voucher <userId> <amountUnits> [--idempotency-key K]
  credit-limit <userId> <amountUnits>          tier <userId> <T1..T5>
  models list                                  models set --json '{…}'    (body of POST /admin/v1/models)
  team-models <userId> [--enabled id,id | --all]
  quotas set --json '{…}'                      quotas override <userId> --model M --type RPM|TPM|IPM --quota N|none
  gpu catalogue                                clusters, products, inventory and GPUs in use
  gpu cluster --id ID --name N [--region R] [--network-storage] [--instance-network]
  gpu product --json '{…}'                     (body of POST /admin/v1/gpu/products)
  gpu inventory <productId> <clusterId> <totalGpus>
  gpu reclaim <instanceId> [--notice-seconds N]   spot reclaim: notified now, stopped after N s
  gpu migrate <instanceId> <clusterId>
  call <METHOD> <path> [json]                  any operator API call

Amounts are in units of 1/10000 USD. The server is GANTRY_URL (default http://HOST:PORT of this
config); the token is GANTRY_ADMIN_TOKEN or adminToken from <data dir>/credentials.json.`;

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

function need(v: string | undefined, what: string): string {
  if (!v) throw new Error(`missing ${what}\n\n${USAGE}`);
  return v;
}

/** Map a CLI command to one operator API call. */
export function toRequest(args: string[]): { method: string; path: string; body?: unknown } {
  const { pos, flags } = parseArgs(args);
  const [group, verb, a1, a2] = pos;
  const idem = flags['idempotency-key'] ?? `cli-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const e = encodeURIComponent;
  switch (group) {
    case 'teams':
      if (verb === 'list') return { method: 'GET', path: '/admin/v1/teams' };
      if (verb === 'get') return { method: 'GET', path: `/admin/v1/teams/${e(need(a1, 'userId'))}` };
      if (verb === 'create') {
        return { method: 'POST', path: '/admin/v1/teams', body: { name: need(flags.name, '--name'), ownerEmail: need(flags['owner-email'], '--owner-email'), ...(flags.tier ? { tier: flags.tier } : {}) } };
      }
      if (verb === 'suspend' || verb === 'resume') {
        return { method: 'POST', path: `/admin/v1/teams/${e(need(a1, 'userId'))}/suspend`, body: { suspended: verb === 'suspend' } };
      }
      break;
    case 'members':
      if (verb === 'list') return { method: 'GET', path: `/admin/v1/teams/${e(need(a1, 'userId'))}/members` };
      if (verb === 'add') {
        return {
          method: 'POST', path: `/admin/v1/teams/${e(need(a1, 'userId'))}/members`,
          body: { email: need(flags.email, '--email'), role: need(flags.role, '--role'), ...(flags.phone ? { phone: flags.phone } : {}), ...(flags['remark-name'] ? { remarkName: flags['remark-name'] } : {}) },
        };
      }
      if (verb === 'role') return { method: 'POST', path: `/admin/v1/members/${e(need(a1, 'memberId'))}/role`, body: { role: need(a2, 'role') } };
      if (verb === 'disable') return { method: 'POST', path: `/admin/v1/members/${e(need(a1, 'memberId'))}/disable`, body: {} };
      break;
    case 'keys':
      if (verb === 'create') return { method: 'POST', path: `/admin/v1/members/${e(need(a1, 'memberId'))}/keys`, body: { name: need(flags.name, '--name') } };
      if (verb === 'revoke') return { method: 'POST', path: `/admin/v1/keys/${e(need(a1, 'keyId'))}/revoke`, body: {} };
      break;
    case 'topup':
    case 'voucher':
      return { method: 'POST', path: `/admin/v1/teams/${e(need(verb, 'userId'))}/${group === 'topup' ? 'topups' : 'vouchers'}`, body: { amount: need(a1, 'amount'), idempotencyKey: idem } };
    case 'credit-limit':
      return { method: 'PUT', path: `/admin/v1/teams/${e(need(verb, 'userId'))}/credit-limit`, body: { creditLimit: need(a1, 'amount') } };
    case 'tier':
      return { method: 'PUT', path: `/admin/v1/teams/${e(need(verb, 'userId'))}/tier`, body: { tier: need(a1, 'tier') } };
    case 'models':
      if (verb === 'list') return { method: 'GET', path: '/admin/v1/models' };
      if (verb === 'set') return { method: 'POST', path: '/admin/v1/models', body: JSON.parse(need(flags.json, '--json')) };
      break;
    case 'team-models':
      if (!flags.enabled && !flags.all) return { method: 'GET', path: `/admin/v1/teams/${e(need(verb, 'userId'))}/models` };
      return { method: 'PUT', path: `/admin/v1/teams/${e(need(verb, 'userId'))}/models`, body: { enabledModels: flags.all ? null : flags.enabled!.split(',').filter(Boolean) } };
    case 'quotas':
      if (verb === 'set') return { method: 'POST', path: '/admin/v1/quotas', body: JSON.parse(need(flags.json, '--json')) };
      if (verb === 'override') {
        const quota = need(flags.quota, '--quota');
        return {
          method: 'PUT', path: `/admin/v1/teams/${e(need(a1, 'userId'))}/quotas`,
          body: { model: need(flags.model, '--model'), quotaType: need(flags.type, '--type'), currentQuota: quota === 'none' ? null : quota },
        };
      }
      break;
    case 'gpu':
      if (verb === 'catalogue') return { method: 'GET', path: '/admin/v1/gpu/catalogue' };
      if (verb === 'cluster') {
        return {
          method: 'POST', path: '/admin/v1/gpu/clusters',
          body: {
            id: need(flags.id, '--id'), name: need(flags.name, '--name'), ...(flags.region ? { region: flags.region } : {}),
            supportNetworkStorage: flags['network-storage'] === 'true', supportInstanceNetwork: flags['instance-network'] === 'true',
          },
        };
      }
      if (verb === 'product') return { method: 'POST', path: '/admin/v1/gpu/products', body: JSON.parse(need(flags.json, '--json')) };
      if (verb === 'inventory') {
        return { method: 'PUT', path: `/admin/v1/gpu/products/${e(need(a1, 'productId'))}/inventory/${e(need(a2, 'clusterId'))}`, body: { totalGpus: Number(need(pos[4], 'totalGpus')) } };
      }
      if (verb === 'reclaim') {
        return { method: 'POST', path: `/admin/v1/gpu/instances/${e(need(a1, 'instanceId'))}/reclaim`, body: flags['notice-seconds'] ? { noticeSeconds: Number(flags['notice-seconds']) } : {} };
      }
      if (verb === 'migrate') return { method: 'POST', path: `/admin/v1/gpu/instances/${e(need(a1, 'instanceId'))}/migrate`, body: { clusterId: need(a2, 'clusterId') } };
      break;
    case 'call':
      return { method: need(verb, 'METHOD').toUpperCase(), path: need(a1, 'path'), ...(a2 ? { body: JSON.parse(a2) } : {}) };
  }
  throw new Error(`unknown admin command: ${pos.join(' ') || '(none)'}\n\n${USAGE}`);
}

export async function runAdminCli(args: string[], env: Env, config: Config): Promise<number> {
  if (args.length === 0 || args[0] === 'help' || args.includes('--help')) {
    process.stdout.write(USAGE + '\n');
    return 0;
  }
  let req: ReturnType<typeof toRequest>;
  try {
    req = toRequest(args);
  } catch (e) {
    process.stderr.write((e as Error).message + '\n');
    return 2;
  }
  const base = env.GANTRY_URL ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
  let token = env.GANTRY_ADMIN_TOKEN;
  const credPath = join(config.dataDir, 'credentials.json');
  if (!token && existsSync(credPath)) token = (JSON.parse(readFileSync(credPath, 'utf8')) as { adminToken?: string }).adminToken;
  if (!token) {
    process.stderr.write(`no operator token: set GANTRY_ADMIN_TOKEN or run from the directory holding ${credPath}\n`);
    return 2;
  }
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
  try {
    process.stdout.write(JSON.stringify(JSON.parse(text), null, 2) + '\n');
  } catch {
    process.stdout.write(text + '\n');
  }
  return res.ok ? 0 : 1;
}
