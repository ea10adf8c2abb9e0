import { describe, expect, it } from "vitest";
import {
  type GrammarEntry,
  parseCommandLine as parseWith,
  tokenize,
} from "../../../src/core/parse/tokenize.js";
import { errorOf, parsed } from "./error-line.js";

const TRON = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";

/** A grammar of the parser's own (the core passes its command registry): verbs, subverbs, an alias. */
const GRAMMAR: readonly GrammarEntry[] = [
  { verb: "help", aliases: ["start"] },
  { verb: "screen" },
  { verb: "compliance" },
  { verb: "energy" },
  { verb: "host", subverbs: ["start", "stop"] },
  { verb: "prices" },
  { verb: "balance" },
  { verb: "statement" },
  { verb: "audit" },
  { verb: "setup", subverbs: ["webhooks", "status", "rotate"] },
];

const parseCommandLine = (text: string, grammar: readonly GrammarEntry[] = GRAMMAR) =>
  parseWith(text, grammar);

describe("tokenize", () => {
  it("splits on any whitespace and lower-cases only the verb", () => {
    expect(parsed(tokenize(`  Screen\t${TRON}   TRX \n provider_A `))).toEqual({
      verb: "screen",
      args: [TRON, "TRX", "provider_A"],
    });
    expect(parsed(tokenize("energy\u00A0T1\u3000T2"))).toEqual({ verb: "energy", args: ["T1", "T2"] });
  });

  it("ignores one leading slash", () => {
    expect(parsed(tokenize("/balance"))).toEqual({ verb: "balance", args: [] });
  });

  it("returns the bot name of /verb@botname separately", () => {
    expect(parsed(tokenize("/Screen@OpsBot T1"))).toEqual({
      verb: "screen",
      args: ["T1"],
      mention: "OpsBot",
    });
    expect(parsed(tokenize("/help@"))).toEqual({ verb: "help", args: [] });
  });

  it("keeps quoted words together, straight or curly quotes", () => {
    expect(parsed(tokenize(`help "two words" 'and three more' “curly one” x`)).args).toEqual([
      "two words",
      "and three more",
      "curly one",
      "x",
    ]);
    expect(parsed(tokenize(`help ""`)).args).toEqual([""]);
    expect(parsed(tokenize(`help don't`)).args).toEqual(["don't"]);
    expect(parsed(tokenize(`help "ab"cd`)).args).toEqual(["abcd"]);
  });

  it("rejects an unclosed quote", () => {
    expect(errorOf(tokenize(`screen "TR7NH`))).toBe(
      `unclosed quote before "TR7NH": close the " or leave the quotes out`,
    );
  });

  it("rejects an empty line", () => {
    for (const text of ["", "   ", "/", "\n"]) {
      expect(errorOf(tokenize(text))).toBe("empty command: type help to see what the bot can do");
    }
  });
});

describe("parseCommandLine", () => {
  it.each(["help", "screen", "compliance", "energy", "prices", "balance", "statement", "audit"])(
    "knows %s",
    (verb) => {
      expect(parsed(parseCommandLine(`${verb} a B`))).toEqual({ verb, args: ["a", "B"] });
    },
  );

  it("maps Telegram's /start to help", () => {
    expect(parsed(parseCommandLine("/start"))).toEqual({ verb: "help", args: [] });
  });

  it("splits off the subverbs of host and setup", () => {
    expect(parsed(parseCommandLine(`host START ${TRON}`))).toEqual({
      verb: "host",
      subverb: "start",
      args: [TRON],
    });
    expect(parsed(parseCommandLine(`/host stop ${TRON}`))).toEqual({
      verb: "host",
      subverb: "stop",
      args: [TRON],
    });
    for (const subverb of ["webhooks", "status", "rotate"]) {
      expect(parsed(parseCommandLine(`setup ${subverb}`))).toEqual({ verb: "setup", subverb, args: [] });
    }
  });

  it("rejects a missing or unknown subverb, suggesting the closest", () => {
    expect(errorOf(parseCommandLine("host"))).toBe("host needs a subcommand: use host start or host stop");
    expect(errorOf(parseCommandLine(`host strat ${TRON}`))).toBe(
      '"strat" is not a host subcommand (did you mean start?): use host start or host stop',
    );
    expect(errorOf(parseCommandLine("setup go"))).toBe(
      '"go" is not a setup subcommand: use setup webhooks, setup status or setup rotate',
    );
  });

  it("unwraps the umbrella form ops <verb>", () => {
    expect(parsed(parseCommandLine(`/ops energy ${TRON} 65k`))).toEqual({
      verb: "energy",
      args: [TRON, "65k"],
    });
    expect(parsed(parseCommandLine(`ops HOST stop ${TRON}`))).toEqual({
      verb: "host",
      subverb: "stop",
      args: [TRON],
    });
    expect(parsed(parseCommandLine("/ops@OpsBot balance"))).toEqual({
      verb: "balance",
      args: [],
      mention: "OpsBot",
    });
    expect(parsed(parseCommandLine("ops"))).toEqual({ verb: "help", args: [] });
  });

  it("keeps the mention of a direct verb", () => {
    expect(parsed(parseCommandLine("/prices@OpsBot energy_5m"))).toEqual({
      verb: "prices",
      args: ["energy_5m"],
      mention: "OpsBot",
    });
  });

  it("suggests the closest verb for a typo, and always help", () => {
    expect(errorOf(parseCommandLine("scren T1"))).toBe(
      'unknown command "scren" (did you mean screen?): type help to see what the bot can do',
    );
    expect(errorOf(parseCommandLine("/enrgy"))).toContain("(did you mean energy?)");
    expect(errorOf(parseCommandLine("ops balnce"))).toContain("(did you mean balance?)");
    expect(errorOf(parseCommandLine("xyzzy"))).toBe(
      'unknown command "xyzzy": type help to see what the bot can do',
    );
  });

  it("echoes an unknown verb safely", () => {
    const error = errorOf(parseCommandLine(`${"\u202E".repeat(3)}${"z".repeat(100)}`));
    expect(error).toMatch(
      /^unknown command "z+…" \(it contains an invisible character \(U\+202E\)\): type help/,
    );
  });

  it("accepts another grammar, such as the core's command registry", () => {
    const grammar: GrammarEntry[] = [{ verb: "ping", aliases: ["p"] }];
    expect(parsed(parseCommandLine("p 1", grammar))).toEqual({ verb: "ping", args: ["1"] });
    expect(errorOf(parseCommandLine("help", grammar))).toContain('unknown command "help"');
  });
});

describe("free text after a verb's words (freeTextAfter)", () => {
  const grammar: readonly GrammarEntry[] = [{ verb: "case", freeTextAfter: 2 }];
  it("keeps the rest of the line as typed: quotes, apostrophes, line breaks; trimmed", () => {
    const typed = `customer's "docs verified by KYC\nsaid "false positive"`;
    expect(parsed(parseCommandLine(`case clear C2   ${typed}  `, grammar))).toEqual({
      verb: "case",
      args: ["clear", "C2", typed],
    });
    expect(parsed(parseCommandLine(`/ops case note C2 ${typed}`, grammar))).toEqual({
      verb: "case",
      args: ["note", "C2", typed],
    });
    expect(parsed(parseCommandLine("case C2", grammar))).toEqual({ verb: "case", args: ["C2"] });
  });
});
