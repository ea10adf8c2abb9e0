import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/**
 * A small import-graph walker for the layer test: every `import … from "…"`, `export … from "…"`,
 * side-effect `import "…"` and `import("…")` of the project's own .ts files, resolved the way
 * NodeNext resolves them (`./x.js` is `./x.ts`). Type-only imports count: a type cycle is still a
 * cycle for a reader, and it is one edit away from a runtime one.
 */
export interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
}

export interface ImportGraph {
  files: string[];
  edges: ImportEdge[];
  /** Relative specifiers that name no file: the walker must see every edge to be trusted. */
  unresolved: string[];
}

const CLAUSE = String.raw`((?:[\w$]+\s*,\s*)?(?:[\w$]+|\{[^}]*\}|\*(?:\s+as\s+[\w$]+)?))`;
const STATIC = new RegExp(
  String.raw`^\s*(?:import|export)\s+(type\s+)?${CLAUSE}\s*from\s*["']([^"']+)["']`,
  "gm",
);
const BARE = /^\s*import\s*["']([^"']+)["']/gm;
const DYNAMIC = /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g;

export interface Specifier {
  specifier: string;
  typeOnly: boolean;
}

/** `{ type A, type B }` with nothing else imported is as type-only as `import type { A, B }`. */
function onlyTypes(clause: string): boolean {
  if (!clause.startsWith("{")) return false;
  const names = clause
    .slice(1, -1)
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  return names.length > 0 && names.every((name) => name.startsWith("type "));
}

/** The module specifiers a source file imports or re-exports. */
export function specifiersOf(source: string): Specifier[] {
  const found: Specifier[] = [];
  for (const m of source.matchAll(STATIC)) {
    found.push({ specifier: m[3] ?? "", typeOnly: m[1] !== undefined || onlyTypes(m[2] ?? "") });
  }
  for (const m of source.matchAll(BARE)) found.push({ specifier: m[1] ?? "", typeOnly: false });
  for (const m of source.matchAll(DYNAMIC)) found.push({ specifier: m[1] ?? "", typeOnly: false });
  return found;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

function resolveRelative(fromFile: string, specifier: string): string | undefined {
  const base = resolve(dirname(fromFile), specifier);
  const candidates = [base.replace(/\.js$/, ".ts"), `${base}.ts`, join(base, "index.ts")];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

/** The graph of the .ts files under `dirs` (relative to `root`); paths in the answer are relative to `root`. */
export function buildImportGraph(root: string, dirs: readonly string[]): ImportGraph {
  const files = dirs.flatMap((dir) => tsFiles(join(root, dir)));
  const edges: ImportEdge[] = [];
  const unresolved: string[] = [];
  for (const file of files) {
    for (const { specifier, typeOnly } of specifiersOf(readFileSync(file, "utf8"))) {
      if (!specifier.startsWith(".")) continue;
      const target = resolveRelative(file, specifier);
      if (target === undefined) unresolved.push(`${relative(root, file)} → ${specifier}`);
      else edges.push({ from: relative(root, file), to: relative(root, target), typeOnly });
    }
  }
  return { files: files.map((f) => relative(root, f)), edges, unresolved };
}

/** Import cycles (one per back edge of a depth-first walk): empty exactly when there is none. Each lists the modules around it, the first repeated at the end. */
export function findCycles(edges: readonly Pick<ImportEdge, "from" | "to">[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    state.set(node, "open");
    path.push(node);
    for (const to of next.get(node) ?? []) {
      if (state.get(to) === "open") cycles.push([...path.slice(path.indexOf(to)), to]);
      else if (!state.has(to)) visit(to);
    }
    path.pop();
    state.set(node, "done");
  };
  for (const node of [...next.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}
