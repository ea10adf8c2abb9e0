import { describe, expect, it } from "vitest";
import { closest, editDistance } from "../../../src/core/parse/closest.js";
import { describeChar, ECHO_MAX_CHARS, echo, formatCount } from "../../../src/core/parse/echo.js";

describe("echo", () => {
  it("quotes short input as it is", () => {
    expect(echo("65q")).toBe('"65q"');
  });

  it("keeps a whole EVM address (42 characters)", () => {
    const address = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
    expect(echo(address)).toBe(`"${address}"`);
  });

  it("cuts longer input to ECHO_MAX_CHARS with an ellipsis", () => {
    const shown = echo("x".repeat(500));
    expect(shown).toBe(`"${"x".repeat(ECHO_MAX_CHARS - 1)}…"`);
    expect(Array.from(shown.slice(1, -1))).toHaveLength(ECHO_MAX_CHARS);
  });

  it("strips newlines, escapes, bidi overrides and zero-width characters", () => {
    expect(echo("ab\ncd\r\u001b[31m\u202Eef\u200Bgh\u2028")).toBe('"abcd[31mefgh"');
  });

  it("never splits a character made of two UTF-16 units", () => {
    const shown = echo("😀".repeat(60));
    expect(shown).toBe(`"${"😀".repeat(ECHO_MAX_CHARS - 1)}…"`);
  });
});

describe("describeChar", () => {
  it("shows printable ASCII as itself", () => {
    expect(describeChar("0")).toBe('"0"');
  });

  it("names spaces and invisible characters by code point", () => {
    expect(describeChar(" ")).toBe("a space (U+0020)");
    expect(describeChar("\u00A0")).toBe("a space (U+00A0)");
    expect(describeChar("\u200B")).toBe("an invisible character (U+200B)");
    expect(describeChar("\n")).toBe("a line break (U+000A)");
  });

  it("shows look-alike letters with their code point", () => {
    expect(describeChar("Т")).toBe('"Т" (U+0422)');
  });
});

describe("formatCount", () => {
  it("groups thousands with commas", () => {
    expect(formatCount(0)).toBe("0");
    expect(formatCount(999)).toBe("999");
    expect(formatCount(61_000)).toBe("61,000");
    expect(formatCount(50_000_000)).toBe("50,000,000");
  });
});

describe("closest", () => {
  it("measures edits", () => {
    expect(editDistance("screen", "screen")).toBe(0);
    expect(editDistance("scren", "screen")).toBe(1);
    expect(editDistance("srceen", "screen")).toBe(1);
    expect(editDistance("eht", "eth")).toBe(1);
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("", "abc")).toBe(3);
  });

  it("suggests the nearest candidate within two edits", () => {
    expect(closest("enrgy", ["help", "energy", "screen"])).toBe("energy");
    expect(closest("xyzzy", ["help", "energy", "screen"])).toBeUndefined();
  });

  it("allows one edit only for short words, a swap counting as one", () => {
    expect(closest("ops", ["host", "help"])).toBeUndefined();
    expect(closest("eht", ["eth", "etc"])).toBe("eth");
    expect(closest("xtc", ["eth", "btc"])).toBe("btc");
    expect(closest("abc", ["xyz"])).toBeUndefined();
  });
});
