// The arrows of docs/architecture.md as data, and a checker of every import of the source
// against them (test/layers.test.ts). An import is any module load: `import … from`,
// `import '…'`, `export … from`, `import('…')`; it may span lines, and comments, strings and
// regular expressions around it are skipped. `import type` and `export type` load nothing
// at run time; `import { type A }` still loads its module, so it counts as a load.
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';

export const LAYERS = ['root', 'http', 'routes', 'jobs', 'gateway', 'domain', 'adapters', 'store', 'drivers', 'model-sim', 'lib', 'console'] as const;
export type Layer = (typeof LAYERS)[number];

/** The composition root: builds the object graph and reads the environment; may import anything. */
const ROOT_FILES = new Set(['main.ts', 'app.ts', 'areas.ts', 'services.ts', 'config.ts', 'postinstall.ts']);

/** The layer of a file, from its path under src/ (`store/counters/x.ts`); undefined: a file outside every layer. */
export function layerOf(path: string): Layer | undefined {
  if (ROOT_FILES.has(path) || path.startsWith('cli/')) return 'root';
  if (path.startsWith('http/routes/')) return 'routes';
  const top = path.split('/')[0]!;
  if (!path.includes('/')) return undefined;
  return (LAYERS as readonly string[]).includes(top) && top !== 'root' && top !== 'routes' ? (top as Layer) : undefined;
}

/**
 * What each layer may import (itself included), types as well as code. The arrows point
 * down, http → jobs → gateway → domain → store | drivers → model-sim → lib, a layer reaching any
 * layer below it; adapters implement domain ports on a store and only the root imports them.
 */
export const MAY_IMPORT: Record<Layer, readonly Layer[]> = {
  root: LAYERS,
  http: ['http', 'jobs', 'gateway', 'domain', 'store', 'drivers', 'model-sim', 'lib'],
  routes: ['routes', 'http', 'jobs', 'gateway', 'domain', 'drivers', 'model-sim', 'lib'], // never the store: routes call domain services
  jobs: ['jobs', 'gateway', 'domain', 'store', 'drivers', 'model-sim', 'lib'],
  gateway: ['gateway', 'domain', 'store', 'drivers', 'model-sim', 'lib'],
  domain: ['domain', 'store', 'drivers', 'model-sim', 'lib'],
  adapters: ['adapters', 'domain', 'store', 'drivers', 'model-sim', 'lib'],
  store: ['store', 'lib'],
  drivers: ['drivers', 'model-sim', 'lib'],
  'model-sim': ['model-sim', 'lib'],
  lib: ['lib'],
  console: ['console'], // the web console's browser modules: the public API is all they reach
};

/**
 * Type-only imports of the root's modules: the settings' shapes everywhere but in the
 * leaves. Nothing else of the root: a route or a plugin names the areas' contexts it uses,
 * not the service graph the root builds of them.
 */
export const TYPES_OF_ROOT: Record<string, readonly Layer[]> = {
  'config.ts': ['http', 'routes', 'jobs', 'gateway', 'domain', 'adapters', 'store', 'drivers'],
};

export interface Import {
  /** the module named, or undefined when computed (`import(url)`) */
  specifier: string | undefined;
  line: number;
  /** `import type …` / `export type … from`: nothing is loaded at run time */
  typeOnly: boolean;
  dynamic: boolean;
}

export interface Token {
  kind: 'name' | 'string' | 'template' | 'punct' | 'other';
  /** names and punctuation: the text; strings and templates without substitutions: the value */
  value: string | undefined;
  line: number;
}

/** Names after which `/` starts a regular expression, not a division. */
const BEFORE_REGEX = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);

const NAME = /[\w$\p{L}\p{N}]+/uy;
const NUMBER = /[\w.]+/y;

/** The tokens of a source text: names, punctuation, strings and templates by value; comments and regular expressions skipped. */
export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let line = 1;
  let i = 0;
  // a `}` closes a block/object ('{') or a template substitution ('${')
  const braces: Array<'{' | '${'> = [];
  const lastSignificant = () => out[out.length - 1];
  const regexAllowed = () => {
    const t = lastSignificant();
    if (!t) return true;
    if (t.kind === 'name') return BEFORE_REGEX.has(t.value!);
    if (t.kind === 'punct') return t.value !== ')' && t.value !== ']';
    return false;
  };
  /** Scans a template from after '`' or after a substitution's '}'; pushes its token when it starts one. */
  const template = (startLine: number, fresh: boolean) => {
    let text = '';
    while (i < src.length) {
      const c = src[i]!;
      if (c === '\\') {
        text += src.slice(i, i + 2);
        if (src[i + 1] === '\n') line++;
        i += 2;
      } else if (c === '`') {
        i++;
        if (fresh) out.push({ kind: 'template', value: text, line: startLine });
        return;
      } else if (c === '$' && src[i + 1] === '{') {
        i += 2;
        braces.push('${');
        if (fresh) out.push({ kind: 'template', value: undefined, line: startLine });
        return;
      } else {
        if (c === '\n') line++;
        text += c;
        i++;
      }
    }
  };
  while (i < src.length) {
    const c = src[i]!;
    if (c === '\n') {
      line++;
      i++;
    } else if (/\s/.test(c)) {
      i++;
    } else if (c === '/' && src[i + 1] === '/') {
      while (i < src.length && src[i] !== '\n') i++;
    } else if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      const stop = end < 0 ? src.length : end + 2;
      for (let k = i; k < stop; k++) if (src[k] === '\n') line++;
      i = stop;
    } else if (c === '\'' || c === '"') {
      const startLine = line;
      let text = '';
      i++;
      while (i < src.length && src[i] !== c && src[i] !== '\n') {
        if (src[i] === '\\') {
          text += src[i + 1] ?? '';
          i += 2;
        } else text += src[i++];
      }
      i++;
      out.push({ kind: 'string', value: text, line: startLine });
    } else if (c === '`') {
      i++;
      template(line, true);
    } else if (c === '}' && braces[braces.length - 1] === '${') {
      braces.pop();
      i++;
      template(line, false);
    } else if (c === '/' && regexAllowed()) {
      let inClass = false;
      i++;
      while (i < src.length && src[i] !== '\n') {
        const r = src[i]!;
        if (r === '\\') i++;
        else if (r === '[') inClass = true;
        else if (r === ']') inClass = false;
        else if (r === '/' && !inClass) break;
        i++;
      }
      i++;
      while (i < src.length && /[a-z]/i.test(src[i]!)) i++;
      out.push({ kind: 'other', value: undefined, line });
    } else if (/[A-Za-z_$\p{L}]/u.test(c)) {
      NAME.lastIndex = i;
      const name = NAME.exec(src)![0];
      out.push({ kind: 'name', value: name, line });
      i += name.length;
    } else if (/[0-9]/.test(c)) {
      NUMBER.lastIndex = i;
      i += NUMBER.exec(src)![0].length;
      out.push({ kind: 'other', value: undefined, line });
    } else {
      if (c === '{') braces.push('{');
      else if (c === '}') braces.pop();
      out.push({ kind: 'punct', value: c, line });
      i++;
    }
  }
  return out;
}

/** Every module load of a source text. */
export function importsOf(src: string): Import[] {
  const t = tokenize(src);
  const found: Import[] = [];
  const is = (k: number, value: string) => t[k]?.value === value && (t[k]!.kind === 'name' || t[k]!.kind === 'punct');
  const literal = (k: number) => (t[k]?.kind === 'string' || t[k]?.kind === 'template' ? t[k]!.value : undefined);
  /** From token `start`: the module after this statement's `from` (none: the statement ends first). */
  const fromClause = (start: number): string | undefined => {
    let depth = 0;
    for (let k = start; k < t.length; k++) {
      if (is(k, '{')) depth++;
      else if (is(k, '}')) depth--;
      else if (depth === 0 && (is(k, ';') || is(k, 'import') || is(k, 'export') || (t[k]!.kind !== 'name' && t[k]!.kind !== 'punct'))) return undefined;
      else if (depth === 0 && is(k, 'from') && t[k + 1]?.kind === 'string') return t[k + 1]!.value;
    }
    return undefined;
  };
  for (let k = 0; k < t.length; k++) {
    if (t[k]!.kind !== 'name' || is(k - 1, '.')) continue;
    const line = t[k]!.line;
    if (t[k]!.value === 'import') {
      if (is(k + 1, '(')) {
        const spec = literal(k + 2);
        const closed = is(k + 3, ')') || is(k + 3, ',');
        found.push({ specifier: closed ? spec : undefined, line, typeOnly: false, dynamic: true });
      } else if (is(k + 1, '.')) {
        // import.meta
      } else if (t[k + 1]?.kind === 'string') {
        found.push({ specifier: t[k + 1]!.value, line, typeOnly: false, dynamic: false });
      } else {
        const typeOnly = is(k + 1, 'type') && (is(k + 2, '{') || is(k + 2, '*') || (t[k + 2]?.kind === 'name' && !is(k + 2, 'from')));
        const spec = fromClause(k + 1);
        if (spec !== undefined) found.push({ specifier: spec, line, typeOnly, dynamic: false });
      }
    } else if (t[k]!.value === 'export') {
      const typeOnly = is(k + 1, 'type') && (is(k + 2, '{') || is(k + 2, '*'));
      const at = typeOnly ? k + 2 : k + 1;
      if (!is(at, '{') && !is(at, '*')) continue; // export const/function/default/…: no module named
      const spec = fromClause(at);
      if (spec !== undefined) found.push({ specifier: spec, line, typeOnly, dynamic: false });
    }
  }
  return found;
}

export interface SourceFile {
  /** under the repository's root: `src/store/db.ts` */
  path: string;
  text: string;
}

/** Computed module loads that are checked by hand: the file and why its load is in its layer. */
export interface Exception {
  file: string;
  /** the module loaded, under src/ (`jobs/runner.ts`); undefined: a computed `import(…)` */
  loads: string | undefined;
  why: string;
}

/**
 * Every import of `files` that breaks a rule, as `path:line layer → layer: specifier`. Test
 * files (`*.test.ts`) are not checked: a test may build what it needs from any layer.
 * `exceptions` that nothing matched are reported too, so a debt paid is also struck off.
 */
export function violations(files: SourceFile[], exceptions: readonly Exception[] = []): string[] {
  const out: string[] = [];
  const used = new Set<Exception>();
  for (const f of files) {
    if (!f.path.startsWith('src/') || f.path.endsWith('.test.ts')) continue;
    const rel = f.path.slice('src/'.length);
    const from = layerOf(rel);
    if (!from) {
      out.push(`${f.path} is in no layer: place it in one of ${LAYERS.join(', ')} (test/helpers/layers.ts)`);
      continue;
    }
    for (const imp of importsOf(f.text)) {
      const where = `${f.path}:${imp.line}`;
      const excused = (loads: string | undefined) => {
        const e = exceptions.find((x) => x.file === f.path && x.loads === loads);
        if (e) used.add(e);
        return e !== undefined;
      };
      if (imp.specifier === undefined) {
        if (!excused(undefined)) out.push(`${where} ${from}: import() of a computed module, which cannot be checked`);
        continue;
      }
      if (!imp.specifier.startsWith('.')) continue; // a package or node: builtin
      const target = posix.normalize(posix.join(posix.dirname(rel), imp.specifier));
      if (target.startsWith('../')) {
        out.push(`${where} ${from} → outside src/: ${imp.specifier}`);
        continue;
      }
      const to = layerOf(target);
      if (to && MAY_IMPORT[from].includes(to)) continue;
      if (to === 'root' && imp.typeOnly && TYPES_OF_ROOT[target]?.includes(from)) continue;
      if (excused(target)) continue;
      out.push(`${where} ${from} → ${to ?? 'no layer'}${imp.typeOnly ? ' (type)' : ''}: ${imp.specifier}`);
    }
  }
  for (const e of exceptions) if (!used.has(e)) out.push(`exception no longer needed, strike it off: ${e.file} → ${e.loads ?? 'import(…)'} (${e.why})`);
  return out;
}

/** The project's source: src/**\/*.ts and the console's modules (src/console/**\/*.js). */
export function sourceFiles(root: string): SourceFile[] {
  const walk = (dir: string): string[] => readdirSync(join(root, dir), { withFileTypes: true }).flatMap((d) => {
    const p = `${dir}/${d.name}`;
    if (d.isDirectory()) return walk(p);
    return p.endsWith('.ts') || (p.startsWith('src/console/') && p.endsWith('.js')) ? [p] : [];
  });
  return walk('src').map((path) => ({ path, text: readFileSync(join(root, path), 'utf8') }));
}
