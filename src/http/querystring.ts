// The one query-string parser (Fastify's routerOptions.querystringParser), so every route
// reads a query the same way: as Fastify does by default (fast-querystring), then keys in
// brackets renamed to the dotted form. compat.md: `filter[types]` and `filter.types` are the
// same parameter (an official client sends the brackets); `ids[]` (an array in the style of
// qs, PHP, Rails) is `ids`. A parameter sent in both forms is repeated, as `a=1&a=2` is.
import { parse } from 'fast-querystring';

/** `name[a][b]` or `name[]`: a name, then one or more bracketed parts without nesting. */
const BRACKETED = /^([^[\]]+)((?:\[[^[\]]*\])+)$/;

export function parseQuery(text: string): Record<string, unknown> {
  const parsed = text.length === 0 ? {} : parse(text) as Record<string, unknown>;
  // most queries have no brackets: the parse stands as it is
  if (!text.includes('[') && !/%5b/i.test(text)) return parsed;
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, value] of Object.entries(parsed)) {
    const name = dotted(key);
    const prev = out[name];
    out[name] = prev === undefined ? value : [prev, value].flat();
  }
  return out;
}

function dotted(key: string): string {
  const m = BRACKETED.exec(key);
  if (!m) return key;
  const parts = m[2]!.slice(1, -1).split('][').filter((part) => part !== '');
  return [m[1]!, ...parts].join('.');
}
