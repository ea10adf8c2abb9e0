import { describe, expect, it } from "vitest";
import {
  checkScreenAddress,
  EVM_TICKERS,
  isNetworkTicker,
  NETWORK_TICKERS,
  parseNetwork,
  parseProvider,
  parseScreenArgs,
} from "../../../src/core/parse/networks.js";
import { errorOf, parsed } from "./error-line.js";

const SPEC_TICKERS =
  "algo, apt, arb, avax, base, bnb, bsc, btc, tao, ada, celo, atom, cro, doge, dydx, eth, etc, ftm, fil, flr, gnosis, hbar, hype, inj, icp, linea, ltc, mob, near, op, dot, matic, xrp, sei, sol, strk, xlm, sui, xtz, ton, trx, xdc, okb, zil, zksync, bch, zen, zec";
const TRON = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
const EVM = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

describe("network tickers", () => {
  it("are exactly the spec's 48, in its order", () => {
    expect(NETWORK_TICKERS.join(", ")).toBe(SPEC_TICKERS);
    expect(NETWORK_TICKERS).toHaveLength(48);
    expect(new Set(NETWORK_TICKERS).size).toBe(48);
  });

  it("EVM candidates are all listed tickers", () => {
    for (const ticker of EVM_TICKERS) expect(isNetworkTicker(ticker)).toBe(true);
  });
});

describe("parseNetwork", () => {
  it.each(NETWORK_TICKERS)("accepts %s", (ticker) => {
    expect(parsed(parseNetwork(ticker))).toBe(ticker);
  });

  it("ignores case and surrounding spaces", () => {
    expect(parsed(parseNetwork(" ETH "))).toBe("eth");
    expect(parsed(parseNetwork("Trx"))).toBe("trx");
  });

  it("rejects an unknown ticker with examples and where to find the list", () => {
    expect(errorOf(parseNetwork("xyzzy"))).toBe(
      '"xyzzy" is not a network ticker: use a ticker like eth, trx, btc, sol or bsc; help screen lists all 48',
    );
  });

  it("suggests the ticker for a typo or a full name", () => {
    expect(errorOf(parseNetwork("eht"))).toBe(
      '"eht" is not a network ticker (did you mean eth?): use a ticker like eth, trx, btc, sol or bsc; help screen lists all 48',
    );
    expect(errorOf(parseNetwork("Ethereum"))).toContain("(did you mean eth?)");
    expect(errorOf(parseNetwork("polygon"))).toContain("(did you mean matic?)");
    expect(errorOf(parseNetwork("tron"))).toContain("(did you mean trx?)");
  });

  it("does not mistake object properties for names", () => {
    expect(errorOf(parseNetwork("constructor"))).not.toContain("did you mean");
    expect(errorOf(parseNetwork("__proto__"))).not.toContain("did you mean");
  });

  it("rejects nothing", () => {
    expect(errorOf(parseNetwork(""))).toBe(
      "no network given: use a ticker like eth, trx, btc, sol or bsc (help screen lists all 48)",
    );
  });
});

describe("checkScreenAddress", () => {
  it("accepts 10 to 100 printable characters", () => {
    expect(parsed(checkScreenAddress("a".repeat(10)))).toBe("a".repeat(10));
    expect(parsed(checkScreenAddress("a".repeat(100)))).toBe("a".repeat(100));
  });

  it("rejects too short, too long, spaces and look-alike letters", () => {
    const accepted = ": addresses have 10 to 100 characters, no spaces";
    expect(errorOf(checkScreenAddress("abc"))).toBe(
      `"abc" is too short for an address (3 characters)${accepted}`,
    );
    expect(errorOf(checkScreenAddress("a".repeat(101)))).toBe(
      `"${"a".repeat(41)}…" is too long for an address (101 characters)${accepted}`,
    );
    expect(errorOf(checkScreenAddress("abcde fghij"))).toBe(
      `"abcde fghij" is not an address (it contains a space (U+0020))${accepted}`,
    );
    expect(errorOf(checkScreenAddress("0xаbcdef0123"))).toContain('(it contains "а" (U+0430))');
  });
});

describe("parseProvider", () => {
  it("accepts provider names as typed", () => {
    expect(parsed(parseProvider("provider_a"))).toBe("provider_a");
    expect(parsed(parseProvider("Provider-B.2"))).toBe("Provider-B.2");
  });

  it("rejects anything else", () => {
    expect(errorOf(parseProvider("<script>"))).toBe(
      '"<script>" is not a provider name: use a name like provider_a (prices aml lists them)',
    );
  });
});

describe("parseScreenArgs", () => {
  it("detects TRON from the address", () => {
    expect(parsed(parseScreenArgs([TRON]))).toEqual({
      address: TRON,
      network: "trx",
      networkSource: "detected",
    });
  });

  it("detects single networks and checks the generic rule", () => {
    expect(parsed(parseScreenArgs(["bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"]))).toEqual({
      address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
      network: "btc",
      networkSource: "detected",
    });
  });

  it("offers candidates for an ambiguous address", () => {
    expect(parsed(parseScreenArgs([EVM]))).toEqual({ address: EVM, candidates: [...EVM_TICKERS] });
  });

  it("lets a typed network win over detection, with a provider", () => {
    expect(parsed(parseScreenArgs([EVM, "BSC", "provider_a"]))).toEqual({
      address: EVM,
      network: "bsc",
      networkSource: "given",
      provider: "provider_a",
    });
    expect(parsed(parseScreenArgs(["1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", "bch"]))).toMatchObject({
      network: "bch",
    });
  });

  it("accepts any sane address when the network is typed", () => {
    expect(parsed(parseScreenArgs(["mobaddress1234567890", "mob"]))).toMatchObject({ network: "mob" });
  });

  it("validates a TRON address fully when trx is typed", () => {
    expect(errorOf(parseScreenArgs(["TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u", "trx"]))).toContain(
      "checksum failed",
    );
    expect(errorOf(parseScreenArgs([EVM, "trx"]))).toContain("(it does not start with T)");
  });

  it("checks a mixed-case EIP-55 checksum when an EVM network is typed", () => {
    const typo = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD";
    expect(errorOf(parseScreenArgs([typo, "eth"]))).toBe(
      `"${typo}" is not a valid EVM address (its mixed-case checksum failed, look for a typo): an EVM address is 0x and 40 hex digits`,
    );
    expect(parsed(parseScreenArgs([typo.toLowerCase(), "eth"]))).toMatchObject({ network: "eth" });
  });

  it("rejects an unknown typed network", () => {
    expect(errorOf(parseScreenArgs([EVM, "ethereum"]))).toContain(
      '"ethereum" is not a network ticker (did you mean eth?)',
    );
  });

  it("asks for the network when the address fits none", () => {
    expect(errorOf(parseScreenArgs(["somethingunusual42"]))).toBe(
      'could not tell the network of "somethingunusual42": add it after the address, e.g. screen <address> eth (help screen lists all 48)',
    );
  });

  it("explains a near-miss of a checksummed format instead", () => {
    expect(errorOf(parseScreenArgs(["TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u"]))).toContain(
      "is not a valid TRON address (checksum failed, look for a typo)",
    );
    expect(errorOf(parseScreenArgs(["0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD"]))).toContain(
      "mixed-case checksum failed",
    );
    expect(errorOf(parseScreenArgs(["short"]))).toContain("is too short for an address (5 characters)");
  });

  it("applies the 100-character rule to detected addresses too (long Cardano base addresses)", () => {
    const base =
      "addr1qx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzer3n0d3vllmyqwsx5wktcd8cc3sq835lu7drv2xwl2wywfgse35a3x";
    expect(errorOf(parseScreenArgs([base]))).toContain("is too long for an address (103 characters)");
  });

  it("rejects a missing address, a bad provider and extra words", () => {
    expect(errorOf(parseScreenArgs([]))).toBe(
      "no address given: use screen <address> [network] [provider], e.g. screen TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
    );
    expect(errorOf(parseScreenArgs([TRON, "trx", "bad provider!"]))).toContain("is not a provider name");
    expect(errorOf(parseScreenArgs([TRON, "trx", "provider_a", "extra"]))).toBe(
      "too many words after screen (4): use screen <address> [network] [provider]",
    );
  });
});
