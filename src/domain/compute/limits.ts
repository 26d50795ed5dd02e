// Field limits of the interface (interface.md, Template and Limits), checked in one place
// so templates and instances name the same field and rule in their 400s.
import { invalid } from '../../lib/errors.ts';

export const RESERVED_PORTS = [2222, 2223, 2224] as const;
export const PORT_TYPES = ['http', 'tcp'] as const;
export const MAX_PORTS_PER_ENTRY = 10;
export const MAX_ENVS = 100;

const bad = (field: string, rule: string) => invalid(field, rule, 'VALIDATOR_PARAM');

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

/** `"80/http,3306/tcp"` → [{port, type}], each checked. */
export function parsePortList(field: string, raw: string | undefined): { port: number; type: string }[] {
  if (!raw || !raw.trim()) return [];
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
  if (out.length > MAX_PORTS_PER_ENTRY) throw bad(field, `at most ${MAX_PORTS_PER_ENTRY} ports, got ${out.length}`);
  return out;
}
