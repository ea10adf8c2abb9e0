import { sha256 } from "@noble/hashes/sha2.js";
import { createBase58check } from "@scure/base";
import { describe, expect, it } from "vitest";
import {
  isTronAddress,
  parseTronAddress,
  TRON_ADDRESS_PATTERN,
} from "../../../src/core/parse/tron-address.js";
import { errorOf, parsed } from "./error-line.js";

/** Real mainnet addresses: the USDT contract, an exchange wallet, the zero address. */
const REAL = [
  "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
  "TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMW",
  "T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb",
];
const ACCEPTED = ": a TRON address starts with T and has 34 characters";

describe("parseTronAddress accepts", () => {
  it.each(REAL)("%s", (address) => {
    expect(parsed(parseTronAddress(address))).toBe(address);
    expect(TRON_ADDRESS_PATTERN.test(address)).toBe(true);
    expect(isTronAddress(address)).toBe(true);
  });

  it("trims surrounding spaces", () => {
    expect(parsed(parseTronAddress("  TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t\n"))).toBe(REAL[0]);
  });
});

describe("parseTronAddress rejects", () => {
  it("a one-character typo: checksum failure", () => {
    for (const address of [
      "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u",
      "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj7t",
      "TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMX",
    ]) {
      expect(TRON_ADDRESS_PATTERN.test(address)).toBe(true);
      expect(errorOf(parseTronAddress(address))).toBe(
        `"${address}" is not a valid TRON address (checksum failed, look for a typo)${ACCEPTED}`,
      );
    }
  });

  it("two swapped characters: checksum failure", () => {
    const error = errorOf(parseTronAddress("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLjt6"));
    expect(error).toContain("checksum failed");
  });

  it("a checksum-valid string with another version byte", () => {
    const coder = createBase58check(sha256);
    const payload = new Uint8Array(21);
    payload[0] = 0x42;
    const foreign = coder.encode(payload);
    expect(foreign).toMatch(TRON_ADDRESS_PATTERN);
    expect(errorOf(parseTronAddress(foreign))).toBe(
      `"${foreign}" is not a valid TRON address (not a mainnet address)${ACCEPTED}`,
    );
  });

  it("the wrong length", () => {
    expect(errorOf(parseTronAddress("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6"))).toBe(
      `"TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6" is not a TRON address (it has 33 characters)${ACCEPTED}`,
    );
    expect(errorOf(parseTronAddress("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6tt"))).toContain(
      "(it has 35 characters)",
    );
  });

  it("characters base58 does not use", () => {
    expect(errorOf(parseTronAddress("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj60"))).toBe(
      `"TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj60" is not a TRON address (it contains "0"; addresses never use 0, O, I, l or punctuation)${ACCEPTED}`,
    );
    expect(errorOf(parseTronAddress("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLjOt"))).toContain('it contains "O"');
    expect(errorOf(parseTronAddress("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgj-j6t"))).toContain('it contains "-"');
  });

  it("an address of another network", () => {
    expect(errorOf(parseTronAddress("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"))).toBe(
      `"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" is not a TRON address (it does not start with T)${ACCEPTED}`,
    );
  });

  it("a look-alike Cyrillic T, named with its code point", () => {
    const error = errorOf(parseTronAddress("\u0422R7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"));
    expect(error).toContain('(it contains "Т" (U+0422))');
  });

  it("a zero-width space pasted inside, named and not echoed", () => {
    const error = errorOf(parseTronAddress("TR7NHqjeKQxGTCi8q8ZY4p\u200BL8otSzgjLj6t"));
    expect(error).toBe(
      `"TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t" is not a TRON address (it contains an invisible character (U+200B))${ACCEPTED}`,
    );
  });

  it("nothing at all", () => {
    expect(errorOf(parseTronAddress("   "))).toBe(`no TRON address given${ACCEPTED}`);
  });

  it("a long paste, echoed short and on one line", () => {
    const error = errorOf(parseTronAddress(`T${"x".repeat(300)}\nrm -rf /`));
    expect(error).toContain("(it contains a line break (U+000A))");
    expect(error).toContain("…");
    expect(isTronAddress("T".repeat(34))).toBe(false);
  });
});
