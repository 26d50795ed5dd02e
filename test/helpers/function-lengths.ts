// How long each function of the source is, read by TypeScript's own parser (typescript 7's
// API, `typescript/unstable/sync`: the native compiler answering over a pipe), so strings,
// templates, regular expressions and JSX-free `.js` are read as the compiler reads them.
// A function is a declaration, an expression, an arrow, a method, an accessor or a
// constructor; its length runs from its first line (after its doc comment) to its last, the
// functions nested in it included.
import { join } from 'node:path';
import { API } from 'typescript/unstable/sync';
import { SyntaxKind, type Node, type SourceFile } from 'typescript/unstable/ast';

const FUNCTIONS = new Set([
  SyntaxKind.FunctionDeclaration, SyntaxKind.FunctionExpression, SyntaxKind.ArrowFunction, SyntaxKind.MethodDeclaration,
  SyntaxKind.Constructor, SyntaxKind.GetAccessor, SyntaxKind.SetAccessor,
]);

export interface FunctionLength {
  /** under the root: `src/app.ts` */
  path: string;
  /** 1-based line of the function's start */
  line: number;
  /** its name, or where it stands (`(arrow)` passed to a call, `name` of the variable it is assigned to) */
  name: string;
  lines: number;
}

function nameOf(n: Node, sf: SourceFile): string {
  const own = (n as unknown as { name?: Node }).name;
  if (own) return own.getText(sf);
  const holder = (n.parent as unknown as { name?: Node }).name;
  if (holder && (n.parent.kind === SyntaxKind.VariableDeclaration || n.parent.kind === SyntaxKind.PropertyAssignment)) return holder.getText(sf);
  return n.kind === SyntaxKind.ArrowFunction ? '(arrow)' : '(function)';
}

function lengthsOf(sf: SourceFile, path: string): FunctionLength[] {
  const out: FunctionLength[] = [];
  const visit = (n: Node): void => {
    if (FUNCTIONS.has(n.kind)) {
      const first = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(n.end).line;
      out.push({ path, line: first + 1, name: nameOf(n, sf), lines: last - first + 1 });
    }
    n.forEachChild(visit);
  };
  visit(sf);
  return out;
}

/**
 * Every function of `files` (paths under `root`) with its length. `texts` stand in for files
 * (a test's planted source): the parser reads them instead of the disk.
 */
export function functionLengths(root: string, files: readonly string[], texts: ReadonlyMap<string, string> = new Map()): FunctionLength[] {
  const config = join(root, '.function-lengths.tsconfig.json'); // never on disk: the parser reads it from here
  const options = { noLib: true, types: [], noResolve: true, allowJs: true, noEmit: true, allowImportingTsExtensions: true };
  const virtual = new Map([...texts].map(([p, text]) => [join(root, p), text]));
  const api = new API({
    cwd: root,
    fs: {
      readFile: (f) => (f === config ? JSON.stringify({ compilerOptions: options, files: files.map((p) => join(root, p)) }) : virtual.get(f)),
      fileExists: (f) => (f === config || virtual.has(f) ? true : undefined),
    },
  });
  try {
    const program = api.updateSnapshot({ openProject: config }).getProjects()[0]!.program;
    return files.flatMap((p) => {
      const sf = program.getSourceFile(join(root, p));
      if (!sf) throw new Error(`the parser did not read ${p}`);
      return lengthsOf(sf, p);
    });
  } finally {
    api.close();
  }
}
