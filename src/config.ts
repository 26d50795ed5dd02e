// One config schema. loadConfig reads an env-like record and reports every problem at once.
import { join } from 'node:path';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  logLevel: string;
  /** How long a cached API-key lookup may be trusted; bounds how fast revocation spreads. */
  keyCacheTtlMs: number;
  simTimeScale: number;
  /** Starting voucher for the first team, in units (1/10000 USD). */
  seedVoucherUnits: bigint;
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.problems = problems;
  }
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env, cwd: string = process.cwd()): Config {
  const problems: string[] = [];
  const int = (name: string, def: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return def;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name} must be an integer in [${min}, ${max}], got "${raw}"`);
      return def;
    }
    return n;
  };
  const num = (name: string, def: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return def;
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0) {
      problems.push(`${name} must be a positive number, got "${raw}"`);
      return def;
    }
    return n;
  };
  const url = (name: string, schemes: string[]): string | undefined => {
    const raw = env[name];
    if (!raw) return undefined;
    try {
      const u = new URL(raw);
      if (!schemes.includes(u.protocol)) problems.push(`${name} must use ${schemes.join(' or ')}, got "${u.protocol}"`);
    } catch {
      problems.push(`${name} is not a valid URL`);
    }
    return raw;
  };
  let seedVoucherUnits = 1_000_000n;
  if (env.GANTRY_SEED_VOUCHER_UNITS) {
    if (/^\d+$/.test(env.GANTRY_SEED_VOUCHER_UNITS)) seedVoucherUnits = BigInt(env.GANTRY_SEED_VOUCHER_UNITS);
    else problems.push('GANTRY_SEED_VOUCHER_UNITS must be a non-negative integer');
  }
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of fatal,error,warn,info,debug,trace,silent, got "${logLevel}"`);
  }
  const config: Config = {
    host: env.HOST || '127.0.0.1',
    port: int('PORT', 8080, 0, 65535),
    dataDir: env.GANTRY_DATA_DIR || join(cwd, 'data'),
    databaseUrl: url('DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl: url('REDIS_URL', ['redis:', 'rediss:']),
    logLevel,
    keyCacheTtlMs: int('GANTRY_KEY_CACHE_TTL_MS', 1000, 0, 1000),
    simTimeScale: num('GANTRY_SIM_TIME_SCALE', 1),
    seedVoucherUnits,
  };
  if (problems.length) throw new ConfigError(problems);
  return config;
}
