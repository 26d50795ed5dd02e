// Field limits of the interface (interface.md, Template and Limits), checked in one place
// so templates and instances name the same field and rule in their 400s.
import { bad } from './errors.ts';

export const RESERVED_PORTS = [2222, 2223, 2224] as const;
export const PORT_TYPES = ['http', 'tcp'] as const;
/** Exposed ports of a template (all entries together) or of an instance's port list. */
export const MAX_EXPOSED_PORTS = 10;
export const MAX_ENVS = 100;


export function checkLength(field: string, value: string | undefined, min: number, max: number): void {
  if (value === undefined) {
    if (min > 0) throw bad(field, 'is required');
    return;
  }
  // Characters are code points (as PostgreSQL counts them): an emoji is one, not two UTF-16
  // units. A string has between length/2 and length code points, so when length is within
  // [2·min, max] it passes without counting them (a 100 KiB readme is not walked each time).
  const n = value.length <= max && value.length >= min * 2 ? value.length : charCount(value);
  if (n < min || n > max) throw bad(field, `must be ${min}-${max} characters, got ${n}`);
}

function charCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

export function checkPort(field: string, port: number): void {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw bad(field, `must be an integer in 1-65535, got ${port}`);
  if ((RESERVED_PORTS as readonly number[]).includes(port)) throw bad(field, `${port} is reserved (2222, 2223, 2224 may not be used)`);
}

export function checkPortType(field: string, type: string): void {
  if (!(PORT_TYPES as readonly string[]).includes(type)) throw bad(field, `must be http or tcp, got "${type}"`);
}

export function checkEnvs(field: string, envs: { key: string; value: string }[] | undefined): void {
  if (!envs) return;
  if (envs.length > MAX_ENVS) throw bad(field, `at most ${MAX_ENVS} pairs, got ${envs.length}`);
  envs.forEach((e, i) => {
    checkLength(`${field}[${i}].key`, e.key ?? '', 0, 511);
    checkLength(`${field}[${i}].value`, e.value ?? '', 0, 4095);
  });
}

type EnvPair = { key: string; value: string };

/**
 * `env` is an alias of `envs` on create bodies (a vendor client sends it, compat.md). The pairs
 * given, and the name to report them under: the one the client used. Both at once must agree.
 */
export function envsOf(prefix: string, x: { envs?: EnvPair[] | undefined; env?: EnvPair[] | undefined }): { field: string; envs: EnvPair[] | undefined } {
  if (x.envs !== undefined && x.env !== undefined && JSON.stringify(x.envs) !== JSON.stringify(x.env)) {
    throw bad(`${prefix}env`, 'is an alias of envs: send one of them (or both the same)');
  }
  if (x.envs === undefined && x.env !== undefined) return { field: `${prefix}env`, envs: x.env };
  return { field: `${prefix}envs`, envs: x.envs };
}

/** `"80/http,3306/tcp"` → [{port, type}], each checked. */
export function parsePortList(field: string, raw: string | undefined): { port: number; type: string }[] {
  if (!raw?.trim()) return [];
  const out: { port: number; type: string }[] = [];
  for (const part of raw.split(',').map((p) => p.trim()).filter(Boolean)) {
    const m = /^(\d+)(?:\/(\w+))?$/.exec(part);
    if (!m) throw bad(field, `"${part}" is not <port>/<http|tcp>`);
    const port = Number(m[1]);
    const type = m[2] ?? 'http';
    checkPort(field, port);
    checkPortType(field, type);
    out.push({ port, type });
  }
  if (out.length > MAX_EXPOSED_PORTS) throw bad(field, `at most ${MAX_EXPOSED_PORTS} ports, got ${out.length}`);
  return out;
}
