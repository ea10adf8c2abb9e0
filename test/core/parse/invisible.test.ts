import { describe, expect, it } from "vitest";
import { commands } from "../../../src/core/command-registry.js";
import { parseEnergyAmount } from "../../../src/core/parse/amount.js";
import { charCount, invisibleNote, isInvisible } from "../../../src/core/parse/echo.js";
import { parseCommandLine } from "../../../src/core/parse/tokenize.js";
import { parseWatchArgs } from "../../../src/core/watch/parse.js";
import { errorOf } from "./error-line.js";

const TRON = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";

describe("invisible characters in what a person typed", () => {
  it("a verb with a zero-width space is named, not echoed as the word it looks like", () => {
    expect(errorOf(parseCommandLine("\u200Bhelp", commands))).toBe(
      'unknown command "help" (it contains an invisible character (U+200B)) (did you mean help?): type help to see what the bot can do',
    );
    expect(errorOf(parseCommandLine("host \u2060start", commands))).toMatch(
      /^"start" \(it contains an invisible character \(U\+2060\)\) is not a host subcommand/,
    );
  });

  it("an amount with an invisible character names it", () => {
    expect(errorOf(parseEnergyAmount("65\u200Bk"))).toMatch(
      /^"65k" is not an amount \(it contains an invisible character \(U\+200B\)\): use a whole number/,
    );
    expect(errorOf(parseEnergyAmount("65x"))).not.toMatch(/invisible/);
  });

  it("labels: invisible only is refused; length counts what a person sees", () => {
    expect(errorOf(parseWatchArgs("add", [TRON, "\u200B\u200D"]))).toMatch(/no visible character/);
    expect(errorOf(parseWatchArgs("add", [TRON, "\u202E"]))).toMatch(/U\+202E/);
    const flags = "🇺🇦".repeat(80); // 80 graphemes, 320 UTF-16 units
    expect(parseWatchArgs("add", [TRON, flags]).ok).toBe(true);
    const long = parseWatchArgs("add", [TRON, `${flags}x`]);
    expect(long.ok ? "" : long.error).toMatch(/at most 80 characters/);
  });

  it("helpers", () => {
    expect(invisibleNote("abc")).toBe("");
    expect(isInvisible(" \u200B\uFEFF ")).toBe(true);
    expect(isInvisible("a\u200B")).toBe(false);
    expect(charCount("é🚀👩‍👩‍👧")).toBe(3);
  });
});
