import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The platform set is open: a platform is its folder `adapters/<name>/` plus one registration line
 * in the registry. Outside the adapters, only the registry and the configuration's declaration
 * (the environment variables and their rules) may name a platform.
 */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PLATFORMS = readdirSync(join(ROOT, "adapters"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const ALLOWED = [
  "src/wiring/platforms.ts",
  "src/config/load-config.ts",
  "src/config/value-rules.ts",
  "src/config/variables.ts",
];

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** An identifier's words: `createSlackAdapter` → create, slack, adapter; `ALERT_SLACK` → alert, slack. */
const wordsOf = (name: string): string[] =>
  name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[\s_$]+/)
    .map((word) => word.toLowerCase());

/**
 * Where a source names a platform, comments left out: an identifier with the platform's name as
 * one of its words (not the global `console` object), a string that is the name or an identity
 * `<name>:…`, an environment variable of the platform (`SLACK_…`, `ALERT_SLACK_…`), an import from
 * its adapter folder.
 */
function platformNames(source: string, platforms: readonly string[]): string[] {
  const found: string[] = [];
  const file = ts.createSourceFile("x.ts", source, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) {
      const globalConsole =
        node.text === "console" &&
        ts.isPropertyAccessExpression(node.parent) &&
        node.parent.expression === node;
      const words = wordsOf(node.text);
      for (const p of platforms) if (words.includes(p) && !globalConsole) found.push(`${p}: ${node.text}`);
    }
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) {
      const text = node.text;
      for (const p of platforms) {
        const upper = p.toUpperCase();
        if (text === p || text.startsWith(`${p}:`)) found.push(`${p}: "${text}"`);
        if (new RegExp(`\\b(ALERT_)?${upper}_[A-Z]`).test(text)) found.push(`${p}: "${text}"`);
        if (text.includes(`adapters/${p}/`)) found.push(`${p}: "${text}"`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe("the open platform set", () => {
  it("recognises each way of naming a platform, and not a comment or the console object", () => {
    const names = (source: string) => platformNames(source, ["slack", "console"]);
    expect(names('const p = "slack";')).toHaveLength(1);
    expect(names("const key = `slack:x`;")).toHaveLength(1);
    expect(names("if (config.slack) go();")).toHaveLength(1);
    expect(names("const x = createSlackAdapter();")).toHaveLength(1);
    expect(names('log("set ALERT_SLACK_CHANNEL");')).toHaveLength(1);
    expect(names('import { X } from "../../adapters/slack/index.js";')).toHaveLength(1);
    expect(names('const c = { platform: "console" };')).toHaveLength(1);
    expect(names("// slack: a comment\n/** `slack:U1` */\nconsole.log(1);")).toEqual([]);
    expect(names('const d = "x-slackish"; const START_LEEWAY_MS = 1;')).toEqual([]);
  });

  it("names a platform only in adapters/<name>/, the registry and the configuration's declaration", () => {
    const naming = tsFiles(join(ROOT, "src"))
      .filter((path) => platformNames(readFileSync(path, "utf8"), PLATFORMS).length > 0)
      .map((path) => relative(ROOT, path).split("\\").join("/"))
      .sort();
    expect(naming).toEqual([...ALLOWED].sort());
  });

  it("the core, the jobs and the webhooks name none", () => {
    const named = ["src/core", "src/jobs", "src/webhooks"].flatMap((dir) =>
      tsFiles(join(ROOT, dir)).flatMap((path) =>
        platformNames(readFileSync(path, "utf8"), PLATFORMS).map((n) => `${relative(ROOT, path)}: ${n}`),
      ),
    );
    expect(named).toEqual([]);
  });
});
