#!/usr/bin/env node
/**
 * Codemod for issue 11: reorganise src/core by feature (`src/core/<feature>/`), tests mirroring it.
 *
 *   node scripts/move-by-feature.mjs            # git mv + rewrite imports + biome format
 *   node scripts/move-by-feature.mjs --dry-run  # print what would change, touch nothing
 *   node scripts/move-by-feature.mjs --no-format
 *
 * Mechanical and re-runnable, so it can be applied to whatever tree the branches merge into:
 * - every MOVES entry whose old file exists is `git mv`-ed (missing ones are listed, not fatal;
 *   an entry whose new file already exists counts as done);
 * - every relative specifier in .ts/.mts/.mjs files under src/, adapters/, test/, scripts/
 *   (`from "…"`, `import "…"`, `import("…")`, `new URL("…", import.meta.url)`,
 *   `join(import.meta.dirname, "…")`) is resolved against the importing file's OLD place, mapped,
 *   and made relative to the file's NEW place; `.js` specifiers naming `.ts` files and folder
 *   `index.js` imports are understood;
 * - root-relative string literals naming a moved file (`"src/core/render/energy.ts"`) are mapped.
 * All new contents are computed before anything is touched. A second run finds nothing to move
 * and so rewrites nothing. Files left in the old layer folders (added on a branch after this
 * table was written) are listed at the end, so a line can be added here and the script re-run.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, posix, relative } from "node:path";
import { fileURLToPath } from "node:url";

const C = "src/core";
const T = "test/core";

/** old path → new path (repository-relative). Shared pieces not listed stay where they are. */
const MOVES = {
  // energy: /energy, its quote/confirm (order5m and orchestrator), rendering, delivery tracking
  [`${C}/commands/energy.ts`]: `${C}/energy/energy-command.ts`,
  [`${C}/parse/energy-args.ts`]: `${C}/energy/energy-args.ts`,
  [`${C}/render/energy.ts`]: `${C}/energy/energy-render.ts`,
  [`${C}/spend/confirm-energy.ts`]: `${C}/energy/confirm-energy.ts`,
  [`${C}/spend/confirm-orchestrator.ts`]: `${C}/energy/confirm-orchestrator.ts`,
  [`${C}/spend/energy-errors.ts`]: `${C}/energy/energy-errors.ts`,
  [`${C}/spend/energy-payload.ts`]: `${C}/energy/energy-payload.ts`,
  [`${C}/tracking/orchestrator.ts`]: `${C}/energy/orchestrator-tracking.ts`,
  [`${C}/tracking/delivery-watch.ts`]: `${C}/energy/delivery-watch.ts`,
  // host: Host Mode command, its confirm, errors and rendering
  [`${C}/commands/host.ts`]: `${C}/host/host-command.ts`,
  [`${C}/render/host.ts`]: `${C}/host/host-render.ts`,
  [`${C}/spend/confirm-host.ts`]: `${C}/host/confirm-host.ts`,
  [`${C}/spend/host-errors.ts`]: `${C}/host/host-errors.ts`,
  // screening: /screen, its run, providers, rendering, tracking
  [`${C}/commands/screen.ts`]: `${C}/screening/screen-command.ts`,
  [`${C}/commands/screen-run.ts`]: `${C}/screening/screen-run.ts`,
  [`${C}/commands/screening-providers.ts`]: `${C}/screening/screening-providers.ts`,
  [`${C}/render/screening.ts`]: `${C}/screening/screening-render.ts`,
  [`${C}/tracking/screening.ts`]: `${C}/screening/screening-tracking.ts`,
  // compliance
  [`${C}/commands/compliance.ts`]: `${C}/compliance/compliance-command.ts`,
  [`${C}/parse/compliance-args.ts`]: `${C}/compliance/compliance-args.ts`,
  [`${C}/render/compliance.ts`]: `${C}/compliance/compliance-render.ts`,
  // statement
  [`${C}/commands/statement.ts`]: `${C}/statement/statement-command.ts`,
  [`${C}/parse/statement-args.ts`]: `${C}/statement/statement-args.ts`,
  [`${C}/render/statement.ts`]: `${C}/statement/statement-render.ts`,
  [`${C}/tracking/statement.ts`]: `${C}/statement/statement-tracking.ts`,
  // account: prices, balance (the price list and balance cache stay shared in spend/)
  [`${C}/commands/prices.ts`]: `${C}/account/prices-command.ts`,
  [`${C}/render/prices.ts`]: `${C}/account/prices-render.ts`,
  [`${C}/commands/balance.ts`]: `${C}/account/balance-command.ts`,
  [`${C}/render/balance.ts`]: `${C}/account/balance-render.ts`,
  // setup: /setup and registering the webhooks with the service
  [`${C}/commands/setup.ts`]: `${C}/setup/setup-command.ts`,
  [`${C}/notifications/registration.ts`]: `${C}/setup/webhook-registration.ts`,
  // audit: the /audit command (the audit log every money path writes stays shared)
  [`${C}/commands/audit.ts`]: `${C}/audit/audit-command.ts`,
  // shared, out of the emptied layer folders
  [`${C}/audit.ts`]: `${C}/audit-log.ts`,
  [`${C}/commands/index.ts`]: `${C}/command-registry.ts`,
  [`${C}/commands/help.ts`]: `${C}/help.ts`,
  [`${C}/tracking/index.ts`]: `${C}/tracking-registry.ts`,
  [`${C}/render/format.ts`]: `${C}/format.ts`,
  [`${C}/render/notifications.ts`]: `${C}/notifications/notifications-render.ts`,
  [`${C}/spend/order5m-flow.ts`]: `${C}/energy/order5m-flow.ts`,
  [`${C}/spend/reconcile-order5m.ts`]: `${C}/energy/reconcile-order5m.ts`,
  [`${C}/render/digest.ts`]: `${C}/notifications/notice-digest-render.ts`,
  [`${C}/spend-guard.ts`]: `${C}/spend/spend-guard.ts`,

  // tests mirror the source tree
  [`${T}/audit.test.ts`]: `${T}/audit/audit.test.ts`,
  [`${T}/commands/balance.test.ts`]: `${T}/account/balance-command.test.ts`,
  [`${T}/commands/prices.test.ts`]: `${T}/account/prices-command.test.ts`,
  [`${T}/render/balance.test.ts`]: `${T}/account/balance-render.test.ts`,
  [`${T}/render/prices.test.ts`]: `${T}/account/prices-render.test.ts`,
  [`${T}/commands/compliance.test.ts`]: `${T}/compliance/compliance-command.test.ts`,
  [`${T}/parse/compliance-args.test.ts`]: `${T}/compliance/compliance-args.test.ts`,
  [`${T}/render/compliance.test.ts`]: `${T}/compliance/compliance-render.test.ts`,
  [`${T}/commands/energy.test.ts`]: `${T}/energy/energy-command.test.ts`,
  [`${T}/commands/energy-errors.test.ts`]: `${T}/energy/energy-errors.test.ts`,
  [`${T}/commands/energy-orchestrator.test.ts`]: `${T}/energy/energy-orchestrator.test.ts`,
  [`${T}/commands/energy-redis.test.ts`]: `${T}/energy/energy-redis.test.ts`,
  [`${T}/spend/delivery-watch.test.ts`]: `${T}/energy/delivery-watch.test.ts`,
  [`${T}/spend/orchestrator-poll.test.ts`]: `${T}/energy/orchestrator-tracking.test.ts`,
  [`${T}/commands/host.test.ts`]: `${T}/host/host-command.test.ts`,
  [`${T}/commands/screen.test.ts`]: `${T}/screening/screen-command.test.ts`,
  [`${T}/render/screening.test.ts`]: `${T}/screening/screening-render.test.ts`,
  [`${T}/commands/statement.test.ts`]: `${T}/statement/statement-command.test.ts`,
  [`${T}/commands/statement-tracking.test.ts`]: `${T}/statement/statement-tracking.test.ts`,
  [`${T}/render/format.test.ts`]: `${T}/format.test.ts`,
  [`${T}/render/notifications.test.ts`]: `${T}/notifications/notifications-render.test.ts`,
  [`${T}/render/digest.test.ts`]: `${T}/notifications/notice-digest-render.test.ts`,
  [`${T}/spend-guard.test.ts`]: `${T}/spend/spend-guard.test.ts`,
};

/** The layer folders this reorganisation empties; anything still in them afterwards is reported. */
const LEGACY_DIRS = [`${C}/commands`, `${C}/render`, `${C}/tracking`, `${T}/commands`, `${T}/render`];
const SCAN_DIRS = ["src", "adapters", "test", "scripts"];
const CODE_EXT = /\.(ts|mts|mjs|tsx)$/;

const args = new Set(process.argv.slice(2));
const DRY = args.has("--dry-run");
const ROOT = execFileSync("git", ["rev-parse", "--show-toplevel"], { encoding: "utf8" }).trim();
const abs = (rel) => join(ROOT, rel);
const repoRel = (p) => relative(ROOT, p).split("\\").join("/");

function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (CODE_EXT.test(name) && !name.endsWith(".d.ts")) out.push(repoRel(p));
  }
  return out;
}

/** Decide the moves of this run: old exists → move; new exists → done before; neither → note. */
function planMoves() {
  const moves = new Map();
  const missing = [];
  const done = [];
  for (const [from, to] of Object.entries(MOVES)) {
    if (existsSync(abs(from))) {
      if (existsSync(abs(to))) throw new Error(`both ${from} and ${to} exist: resolve by hand first`);
      moves.set(from, to);
    } else if (existsSync(abs(to))) done.push(from);
    else missing.push(from);
  }
  return { moves, missing, done };
}

/** The file a relative specifier names, tried the way TypeScript (NodeNext) resolves it. */
function resolveTarget(fromFile, spec, files) {
  const base = posix.normalize(posix.join(posix.dirname(fromFile), spec));
  const candidates = [base];
  const js = base.match(/^(.*)\.(js|mjs|cjs|jsx)$/);
  if (js) candidates.push(`${js[1]}.${{ js: "ts", mjs: "mts", cjs: "cts", jsx: "tsx" }[js[2]]}`);
  if (!/\.[a-z]+$/.test(base)) candidates.push(`${base}.ts`, `${base}/index.ts`);
  for (const c of candidates) if (files.has(c)) return { file: c, kind: c === base ? "exact" : "ts" };
  if (existsSync(abs(base))) return { file: base, kind: "exact" };
  return null;
}

/** A specifier from `fromNew` to `targetNew`, in the style of the original one. */
function specifierFor(fromNew, targetNew, original, kind) {
  let target = targetNew;
  if (kind === "ts") {
    const folderImport = !/\.[a-z]+$/.test(original);
    if (folderImport && target.endsWith("/index.ts")) target = posix.dirname(target);
    else if (folderImport && !/\.(js|mjs)$/.test(original)) target = target.replace(/\.ts$/, "");
    else
      target = target
        .replace(/\.ts$/, ".js")
        .replace(/\.mts$/, ".mjs")
        .replace(/\.tsx$/, ".jsx");
  }
  let rel = posix.relative(posix.dirname(fromNew), target) || ".";
  if (!rel.startsWith(".")) rel = `./${rel}`;
  if (original.endsWith("/") && !rel.endsWith("/")) rel += "/";
  return rel;
}

const PATTERNS = [
  /(\bfrom\s*)(["'])(\.{1,2}\/[^"'\n]*)\2/g,
  /(\bimport\s*)(["'])(\.{1,2}\/[^"'\n]*)\2/g,
  /(\bimport\s*\(\s*)(["'])(\.{1,2}\/[^"'\n]*)\2(?=\s*\))/g,
  /(\bnew\s+URL\s*\(\s*)(["'])(\.{1,2}\/[^"'\n]*)\2(?=\s*,\s*import\.meta\.url)/g,
  /(\b(?:join|resolve)\s*\(\s*import\.meta\.dirname\s*,\s*)(["'])(\.{1,2}\/[^"'\n]*)\2/g,
];

/** Root-relative literals such as "src/core/render/energy.ts" (tests that read source files). */
const ROOT_LITERAL = /(["'`])((?:src|test|adapters)\/[A-Za-z0-9_./-]+\.(?:ts|js))\1/g;

/** Comments that name a core file by its path inside src/core: (`)commands/index.ts(`). */
const CORE_MENTION =
  /(?<![\w/.-])((?:commands|render|tracking|spend|parse|notifications)\/[a-z0-9-]+\.ts)\b/g;

function rewrite(file, newFile, text, moves, files) {
  let count = 0;
  const unresolved = [];
  let out = text;
  for (const pattern of PATTERNS) {
    out = out.replace(pattern, (whole, lead, quote, spec) => {
      const target = resolveTarget(file, spec, files);
      if (!target) {
        if (file !== newFile) unresolved.push(spec);
        return whole;
      }
      const targetNew = moves.get(target.file) ?? target.file;
      if (file === newFile && targetNew === target.file) return whole;
      const next = specifierFor(newFile, targetNew, spec, target.kind);
      if (next === spec) return whole;
      count++;
      return `${lead}${quote}${next}${quote}`;
    });
  }
  out = out.replace(ROOT_LITERAL, (whole, quote, path) => {
    const asTs = path.replace(/\.js$/, ".ts");
    const to = moves.get(path) ?? moves.get(asTs);
    if (!to) return whole;
    count++;
    return `${quote}${path.endsWith(".js") ? to.replace(/\.ts$/, ".js") : to}${quote}`;
  });
  out = out.replace(CORE_MENTION, (whole, path) => {
    const to = moves.get(`${C}/${path}`);
    return to ? to.slice(C.length + 1) : whole;
  });
  return { out, count, unresolved };
}

/** The folders a move emptied, so the tree on disk matches the one git records. */
function removeEmptyDirs(dirs) {
  for (const dir of new Set(dirs)) {
    if (existsSync(dir) && readdirSync(dir).length === 0) rmdirSync(dir);
  }
}

/** Markdown pages that still name an old path: reported, not edited (prose is rewritten by hand). */
function staleDocs() {
  const pages = ["README.md", ...walkDocs(abs("docs"))].filter((p) => existsSync(abs(p)));
  return pages.flatMap((page) => {
    const text = readFileSync(abs(page), "utf8");
    const named = Object.keys(MOVES).filter(
      (old) =>
        text.includes(old) || (old.startsWith(`${C}/`) && text.includes(`\`${old.slice(C.length + 1)}\``)),
    );
    return named.length ? [`${page}: ${named.join(", ")}`] : [];
  });
}

function walkDocs(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => n.endsWith(".md"))
    .map((n) => repoRel(join(dir, n)));
}

function main() {
  const { moves, missing, done } = planMoves();
  const self = repoRel(fileURLToPath(import.meta.url));
  const all = SCAN_DIRS.flatMap((d) => walk(abs(d))).filter((f) => f !== self);
  const fileSet = new Set(all);
  const writes = [];
  let rewritten = 0;
  const unresolved = [];
  for (const file of all) {
    const newFile = moves.get(file) ?? file;
    const text = readFileSync(abs(file), "utf8");
    const r = rewrite(file, newFile, text, moves, fileSet);
    rewritten += r.count;
    for (const spec of r.unresolved) unresolved.push(`${file}: ${spec}`);
    if (r.out !== text) writes.push({ newFile, text: r.out, count: r.count });
  }

  if (DRY) {
    for (const [from, to] of moves) console.log(`would move ${from} → ${to}`);
    for (const w of writes) console.log(`would rewrite ${w.count} in ${w.newFile}`);
  } else {
    for (const [from, to] of moves) {
      mkdirSync(dirname(abs(to)), { recursive: true });
      // A file not yet in git (added on the merge, uncommitted) is moved on disk instead.
      try {
        execFileSync("git", ["mv", from, to], { cwd: ROOT, stdio: "ignore" });
      } catch {
        renameSync(abs(from), abs(to));
      }
    }
    for (const w of writes) writeFileSync(abs(w.newFile), w.text);
    removeEmptyDirs([...moves.keys()].map((f) => dirname(abs(f))));
    if (moves.size > 0 && !args.has("--no-format")) {
      try {
        execFileSync("npx", ["biome", "check", "--write", "."], { cwd: ROOT, stdio: "ignore" });
      } catch {
        console.log(
          "note: `npx biome check --write .` reported problems; run `npx biome check .` to see them",
        );
      }
    }
  }

  const leftovers = LEGACY_DIRS.flatMap((d) => walk(abs(d))).filter((f) => !moves.has(f));
  console.log(`${DRY ? "[dry run] " : ""}files moved: ${moves.size} (already moved before: ${done.length})`);
  console.log(`imports rewritten: ${rewritten} in ${writes.length} files`);
  console.log(`mapped files not found: ${missing.length}`);
  for (const m of missing) console.log(`  - ${m} (neither it nor ${MOVES[m]} exists; renamed on a branch?)`);
  if (unresolved.length) {
    console.log(
      `relative specifiers in moved files that name no file (left as they were): ${unresolved.length}`,
    );
    for (const u of unresolved) console.log(`  - ${u}`);
  }
  const stale = staleDocs();
  if (stale.length) {
    console.log(`docs that still name old paths (edit by hand):`);
    for (const line of stale) console.log(`  - ${line}`);
  }
  if (leftovers.length) {
    console.log(`not in the table, still in an old layer folder (add a line to MOVES and re-run):`);
    for (const f of leftovers) console.log(`  - ${f}`);
  }
}

main();
