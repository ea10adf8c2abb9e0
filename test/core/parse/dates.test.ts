import { describe, expect, it } from "vitest";
import {
  parseIsoDate,
  parseStatementFormat,
  parseStatementPeriod,
  parseStatementToken,
  STATEMENT_MAX_DAYS,
  statementTokenId,
} from "../../../src/core/parse/dates.js";
import { parseStatementArgs } from "../../../src/core/statement/statement-args.js";
import { errorOf, parsed } from "./error-line.js";

/** Late in the UTC day, so a local-time bug would show as an off-by-one. */
const TODAY = new Date("2026-11-20T23:59:59.999Z");
const TRON = "TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMW";
const USDT = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
const DATE_HELP = ": use YYYY-MM-DD, e.g. 2026-01-31";

describe("parseIsoDate", () => {
  it("accepts real dates, leap days included", () => {
    expect(parsed(parseIsoDate("1970-01-02"))).toBe(1);
    expect(parsed(parseIsoDate("2024-02-29"))).toBe(19_782);
  });

  it.each([
    ["2026-02-30", "is not a real calendar date"],
    ["2025-02-29", "is not a real calendar date"],
    ["2026-13-01", "is not a real calendar date"],
    ["2026-04-31", "is not a real calendar date"],
    ["2026-00-10", "is not a real calendar date"],
    ["0099-01-01", "is not a real calendar date"],
    ["2026/01/31", "is not a date"],
    ["26-01-31", "is not a date"],
    ["2026-1-31", "is not a date"],
    ["31.01.2026", "is not a date"],
    ["yesterday", "is not a date"],
    ["", "is not a date"],
  ])("rejects %s", (text, problem) => {
    expect(errorOf(parseIsoDate(text))).toBe(`"${text}" ${problem}${DATE_HELP}`);
  });
});

describe("parseStatementPeriod", () => {
  it("accepts a period ending today (UTC)", () => {
    expect(parsed(parseStatementPeriod("2026-11-01", "2026-11-20", TODAY))).toEqual({
      dateFrom: "2026-11-01",
      dateTo: "2026-11-20",
      days: 20,
    });
  });

  it("accepts a single day", () => {
    expect(parsed(parseStatementPeriod("2026-01-31", "2026-01-31", TODAY)).days).toBe(1);
  });

  it("counts days inclusively: 366 fits (a leap year), 367 does not", () => {
    expect(STATEMENT_MAX_DAYS).toBe(366);
    expect(parsed(parseStatementPeriod("2024-01-01", "2024-12-31", TODAY)).days).toBe(366);
    expect(parsed(parseStatementPeriod("2025-01-01", "2026-01-01", TODAY)).days).toBe(366);
    expect(errorOf(parseStatementPeriod("2025-01-01", "2026-01-02", TODAY))).toBe(
      "2025-01-01 to 2026-01-02 is 367 days: a statement covers at most 366 days, both dates included",
    );
  });

  it("rejects a period that starts after it ends", () => {
    expect(errorOf(parseStatementPeriod("2026-03-01", "2026-02-01", TODAY))).toBe(
      "the period starts after it ends (2026-03-01 is after 2026-02-01): give <from> first, then <to>",
    );
  });

  it("rejects a period that ends after today (UTC)", () => {
    expect(errorOf(parseStatementPeriod("2026-11-01", "2026-11-21", TODAY))).toBe(
      "2026-11-21 is in the future (today is 2026-11-20 UTC): the period must end today or earlier",
    );
    // Just after midnight UTC the new day is allowed even where local time is still yesterday.
    expect(
      parsed(parseStatementPeriod("2026-11-21", "2026-11-21", new Date("2026-11-21T00:00:00Z"))).days,
    ).toBe(1);
  });

  it("passes on the date parser's line", () => {
    expect(errorOf(parseStatementPeriod("2026-02-30", "2026-03-01", TODAY))).toBe(
      `"2026-02-30" is not a real calendar date${DATE_HELP}`,
    );
    expect(errorOf(parseStatementPeriod("2026-02-01", "march", TODAY))).toBe(
      `"march" is not a date${DATE_HELP}`,
    );
  });
});

describe("parseStatementFormat", () => {
  it("defaults to csv and accepts csv or pdf in any case", () => {
    expect(parsed(parseStatementFormat())).toBe("csv");
    expect(parsed(parseStatementFormat(""))).toBe("csv");
    expect(parsed(parseStatementFormat("CSV"))).toBe("csv");
    expect(parsed(parseStatementFormat("pdf"))).toBe("pdf");
    expect(parsed(parseStatementFormat("PDF"))).toBe("pdf");
  });

  it("rejects anything else", () => {
    expect(errorOf(parseStatementFormat("xlsx"))).toBe(
      '"xlsx" is not a statement format: use csv (the default) or pdf',
    );
  });
});

describe("parseStatementToken", () => {
  const HELP = ": use TRX (the default), a TRC20 contract address (T…) or a TRC10 id (digits, e.g. 1002000)";

  it("TRX by default, by name in any case: token_id omitted", () => {
    for (const text of [undefined, "", "TRX", "trx", "Trx"]) {
      const token = parsed(parseStatementToken(text));
      expect(token).toEqual({ kind: "trx" });
      expect(statementTokenId(token)).toBeUndefined();
    }
  });

  it("a TRC20 contract address, checksum-validated", () => {
    const token = parsed(parseStatementToken(USDT));
    expect(token).toEqual({ kind: "trc20", contract: USDT });
    expect(statementTokenId(token)).toBe(USDT);
    expect(errorOf(parseStatementToken("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u"))).toContain("checksum failed");
  });

  it("a TRC10 id", () => {
    const token = parsed(parseStatementToken("1002000"));
    expect(token).toEqual({ kind: "trc10", id: "1002000" });
    expect(statementTokenId(token)).toBe("1002000");
    expect(parsed(parseStatementToken("1000001"))).toEqual({ kind: "trc10", id: "1000001" });
  });

  it("rejects ids below the first TRC10 id, too long, and other words", () => {
    expect(errorOf(parseStatementToken("12"))).toBe(`"12" is not a TRC10 id${HELP}`);
    expect(errorOf(parseStatementToken("1000000"))).toBe(`"1000000" is not a TRC10 id${HELP}`);
    expect(errorOf(parseStatementToken("12345678901"))).toBe(`"12345678901" is not a TRC10 id${HELP}`);
    expect(errorOf(parseStatementToken("USDT"))).toBe(`"USDT" is not a token${HELP}`);
    expect(errorOf(parseStatementToken("1e6"))).toBe(`"1e6" is not a token${HELP}`);
  });
});

describe("parseStatementArgs", () => {
  it("parses the minimal form with defaults", () => {
    expect(parsed(parseStatementArgs([TRON, "2026-01-01", "2026-01-31"], TODAY))).toEqual({
      address: TRON,
      period: { dateFrom: "2026-01-01", dateTo: "2026-01-31", days: 31 },
      format: "csv",
      token: { kind: "trx" },
    });
  });

  it("takes format and token in either order", () => {
    const expected = { format: "pdf", token: { kind: "trc20", contract: USDT } };
    expect(parsed(parseStatementArgs([TRON, "2026-01-01", "2026-01-31", "pdf", USDT], TODAY))).toMatchObject(
      expected,
    );
    expect(parsed(parseStatementArgs([TRON, "2026-01-01", "2026-01-31", USDT, "PDF"], TODAY))).toMatchObject(
      expected,
    );
    expect(parsed(parseStatementArgs([TRON, "2026-01-01", "2026-01-31", "1002000"], TODAY))).toMatchObject({
      format: "csv",
      token: { kind: "trc10", id: "1002000" },
    });
  });

  it("rejects missing and extra words", () => {
    const usage =
      ": use statement <address> <from> <to> [csv|pdf] [token], e.g. statement T… 2026-01-01 2026-01-31 pdf";
    expect(errorOf(parseStatementArgs([TRON, "2026-01-01"], TODAY))).toBe(
      `a statement needs an address and two dates${usage}`,
    );
    expect(errorOf(parseStatementArgs([TRON, "2026-01-01", "2026-01-31", "pdf", "trx", "x"], TODAY))).toBe(
      `too many words after statement (6)${usage}`,
    );
  });

  it("rejects a doubled format or token, and a word that is neither", () => {
    const base = [TRON, "2026-01-01", "2026-01-31"];
    expect(errorOf(parseStatementArgs([...base, "csv", "pdf"], TODAY))).toBe(
      "two formats given (csv, pdf): use csv or pdf, once",
    );
    expect(errorOf(parseStatementArgs([...base, "trx", "1002000"], TODAY))).toBe(
      "two tokens given: give one token, or none for TRX",
    );
    expect(errorOf(parseStatementArgs([...base, "xlsx"], TODAY))).toBe(
      '"xlsx" is neither a format nor a token: use csv or pdf, and TRX, a TRC20 contract (T…) or a TRC10 id',
    );
  });

  it("passes on the address, period and token lines", () => {
    expect(errorOf(parseStatementArgs(["Tbad", "2026-01-01", "2026-01-31"], TODAY))).toContain(
      "(it has 4 characters)",
    );
    expect(errorOf(parseStatementArgs([TRON, "2026-01-31", "2026-01-01"], TODAY))).toContain(
      "starts after it ends",
    );
    expect(errorOf(parseStatementArgs([TRON, "2026-01-01", "2026-01-31", "12"], TODAY))).toContain(
      "is not a TRC10 id",
    );
  });
});
