import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The core talks to ports only: no platform SDK, no Redis or queue client, no HTTP stack.
 * Adapters, the store and the service client are where those belong.
 */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CORE = join(ROOT, "src/core");
const FORBIDDEN = [
  /^undici(\/|$)/,
  /^ioredis(\/|$)/,
  /^bullmq(\/|$)/,
  /^@slack\//,
  /^grammy(\/|$)/,
  /^@grammyjs\//,
  /^(node:)?https?$/,
];
// Static imports and re-exports (`from "x"`), side-effect imports, dynamic import() and require().
const SPECIFIERS = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']([^"']+)["']/g;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

function forbiddenImports(source: string): string[] {
  return [...source.matchAll(SPECIFIERS)]
    .map((m) => m[1] ?? "")
    .filter((specifier) => FORBIDDEN.some((rule) => rule.test(specifier)));
}

describe("core boundary", () => {
  it("recognises every forbidden form of import", () => {
    const sample = [
      'import { request } from "undici";',
      'import type { Redis } from "ioredis";',
      'export { Queue } from "bullmq";',
      'import { App } from "@slack/bolt";',
      'const g = await import("grammy");',
      'import "node:http";',
      'const h = require("https");',
      'import { x } from "./undici-like.js";',
      'import { createHash } from "node:crypto";',
    ].join("\n");
    expect(forbiddenImports(sample)).toEqual([
      "undici",
      "ioredis",
      "bullmq",
      "@slack/bolt",
      "grammy",
      "node:http",
      "https",
    ]);
  });

  it("src/core imports no platform SDK, Redis, queue or HTTP client", () => {
    const files = tsFiles(CORE);
    expect(files.length).toBeGreaterThan(5);
    const offenders = files.flatMap((file) =>
      forbiddenImports(readFileSync(file, "utf8")).map(
        (specifier) => `${relative(ROOT, file)} imports ${specifier}`,
      ),
    );
    expect(offenders).toEqual([]);
  });
});
