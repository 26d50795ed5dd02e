// Import circles of the source (test/layers.test.ts): files that reach themselves through
// their imports. Every module load counts, `import type` and `import()` included: a circle of
// types is still two files that cannot be read, moved or tested one without the other, and a
// circle closed by `import()` is one the loader must order at run time. Test files are left
// out, as in the arrows' check: a test may import from anywhere.
import { posix } from 'node:path';
import { importsOf, type SourceFile } from './layers.ts';

interface Edge {
  to: string;
  /** `type`: nothing is loaded at run time; `import()`: loaded when the code runs */
  how: '' | 'type' | 'import()';
}

/** The files each file imports, among `files` (relative specifiers only: packages are no part of a circle). */
export function importGraph(files: readonly SourceFile[]): Map<string, Edge[]> {
  const checked = files.filter((f) => f.path.startsWith('src/') && !f.path.endsWith('.test.ts'));
  const known = new Set(checked.map((f) => f.path));
  const graph = new Map<string, Edge[]>();
  for (const f of checked) {
    const edges: Edge[] = [];
    for (const imp of importsOf(f.text)) {
      if (!imp.specifier?.startsWith('.')) continue;
      const to = posix.normalize(posix.join(posix.dirname(f.path), imp.specifier));
      if (!known.has(to) || edges.some((e) => e.to === to)) continue;
      edges.push({ to, how: imp.dynamic ? 'import()' : imp.typeOnly ? 'type' : '' });
    }
    graph.set(f.path, edges);
  }
  return graph;
}

/** The strongly connected parts of the graph with more than one file, or one that imports itself (Tarjan's, iterative). */
function circles(graph: Map<string, Edge[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; next: number }> = [{ node: start, next: 0 }];
    index.set(start, index.size);
    low.set(start, index.get(start)!);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const top = work[work.length - 1]!;
      const edges = graph.get(top.node)!;
      if (top.next < edges.length) {
        const to = edges[top.next++]!.to;
        if (!index.has(to)) {
          index.set(to, index.size);
          low.set(to, index.get(to)!);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, next: 0 });
        } else if (onStack.has(to)) low.set(top.node, Math.min(low.get(top.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(top.node)!));
      if (low.get(top.node) !== index.get(top.node)) continue;
      const part: string[] = [];
      let n: string;
      do {
        n = stack.pop()!;
        onStack.delete(n);
        part.push(n);
      } while (n !== top.node);
      if (part.length > 1 || edges.some((e) => e.to === top.node)) out.push(part.sort());
    }
  }
  return out;
}

/** The shortest loop from `from` back to itself inside `part`: each step, the file reached and how it is imported. */
function shortestLoop(graph: Map<string, Edge[]>, part: Set<string>, from: string): Array<{ file: string; how: Edge['how'] }> {
  const came = new Map<string, { prev: string; how: Edge['how'] }>();
  const queue = [from];
  for (let i = 0; i < queue.length && !came.has(from); i++) {
    for (const e of graph.get(queue[i]!)!) {
      if (!part.has(e.to) || came.has(e.to)) continue;
      came.set(e.to, { prev: queue[i]!, how: e.how });
      queue.push(e.to);
    }
  }
  const steps: Array<{ file: string; how: Edge['how'] }> = [];
  for (let at = from; steps.length === 0 || at !== from;) {
    const step = came.get(at)!; // a strongly connected part always has a loop through each of its files
    steps.unshift({ file: at, how: step.how });
    at = step.prev;
  }
  return steps;
}

/**
 * Every import circle of `files`, one line each: how many files it holds, and its shortest
 * loop through its first file (`(type)`/`(import())` mark an import that loads nothing at
 * start), then the circle's other files (the first eight) when the loop does not pass through them all.
 */
export function importCycles(files: readonly SourceFile[]): string[] {
  const graph = importGraph(files);
  return circles(graph).map((part) => {
    const loop = shortestLoop(graph, new Set(part), part[0]!);
    const text = [part[0]!, ...loop.map((s) => `${s.how ? `(${s.how}) ` : ''}${s.file}`)].join(' → ');
    const off = part.filter((p) => !loop.some((s) => s.file === p));
    const also = off.length > 8 ? `${off.slice(0, 8).join(', ')} and ${off.length - 8} more` : off.join(', ');
    return `circle of ${part.length} file${part.length === 1 ? '' : 's'}: ${text}${off.length ? `; also in it: ${also}` : ''}`;
  });
}
