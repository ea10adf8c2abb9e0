import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const PARSE_DIR = join(import.meta.dirname, "../../../src/core/parse");
/** Pure parsing: hashing and encoding libraries and sibling modules only. No I/O, no platform SDK. */
const ALLOWED = [/^\.\/[a-z0-9-]+\.js$/, /^@noble\/hashes\/[a-z0-9]+\.js$/, /^@scure\/base$/];

describe("src/core/parse imports", () => {
  const files = readdirSync(PARSE_DIR).filter((name) => name.endsWith(".ts"));

  it("has files to check", () => {
    expect(files.length).toBeGreaterThan(5);
  });

  it.each(files)("%s imports only pure modules", (name) => {
    const source = readFileSync(join(PARSE_DIR, name), "utf8");
    const specifiers = [
      ...source.matchAll(/\bfrom\s+"([^"]+)"|\bimport\s*\(\s*"([^"]+)"\s*\)|^import\s+"([^"]+)"/gm),
    ].map((m) => m[1] ?? m[2] ?? m[3] ?? "");
    for (const specifier of specifiers) {
      expect(
        ALLOWED.some((rule) => rule.test(specifier)),
        `${name} imports ${specifier}`,
      ).toBe(true);
    }
  });
});
