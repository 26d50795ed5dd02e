// Which methods the API answers at a path, for the not-found handler: a path some route
// serves with other methods is a 405 naming them (`Allow`), not a 404 that a client reads as
// "no such model" or "no such thing". Fastify's router tells only whether a method and a path
// match; this matches the registered URL patterns (`:param` one segment, `*` the rest).

interface RoutePattern {
  method: string;
  url: string;
}

interface Compiled {
  pattern: RegExp;
  methods: Set<string>;
}

const literal = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');

/** A route's URL as a regular expression over a request path. */
function compile(url: string): RegExp {
  const body = url.replace(/\/$/, '').split('/').map((seg) => {
    if (seg === '*') return '.*';
    if (seg.startsWith(':')) return '[^/]+';
    return literal(seg).replace(/\*$/, '.*');
  }).join('/');
  return new RegExp(`^${body}/?$`);
}

export class AllowedMethods {
  private compiled: Compiled[] | undefined;
  private readonly routes: readonly RoutePattern[];
  constructor(routes: readonly RoutePattern[]) {
    this.routes = routes;
  }

  /**
   * The methods some route answers at `path` (a request's path, its query left out), HEAD
   * with GET as Fastify serves it; empty when no route serves the path at all.
   */
  at(path: string): string[] {
    // compiled at the first unknown request: every route is registered by then
    this.compiled ??= this.compileAll();
    const bare = path.split('?', 1)[0]!;
    const methods = new Set<string>();
    for (const c of this.compiled) if (c.pattern.test(bare)) for (const m of c.methods) methods.add(m);
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  }

  private compileAll(): Compiled[] {
    const byUrl = new Map<string, Set<string>>();
    for (const r of this.routes) {
      const set = byUrl.get(r.url) ?? new Set<string>();
      set.add(r.method);
      byUrl.set(r.url, set);
    }
    return [...byUrl].map(([url, methods]) => ({ pattern: compile(url), methods }));
  }
}
