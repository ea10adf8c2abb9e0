import { sha256 } from "@noble/hashes/sha2.js";
import { bech32, createBase58check } from "@scure/base";
import { describe, expect, it } from "vitest";
import { detectNetworks, EVM_TICKERS, type NetworkTicker } from "../../../src/core/parse/networks.js";

const base58check = createBase58check(sha256);
const HASH20 = Uint8Array.from({ length: 20 }, (_, i) => (i * 37 + 11) % 256);

/** A checksum-valid base58check string with the given version bytes: for formats without a well-known real address. */
const withVersion = (...version: number[]): string =>
  base58check.encode(Uint8Array.from([...version, ...HASH20]));
const withBech32 = (prefix: string): string => bech32.encode(prefix, bech32.toWords(HASH20));

const single = (address: string): NetworkTicker | undefined => {
  const detection = detectNetworks(address);
  return detection.kind === "single" ? detection.network : undefined;
};

describe("detectNetworks: one network", () => {
  const cases: [string, NetworkTicker][] = [
    ["TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "trx"],
    ["T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb", "trx"],
    ["1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", "btc"],
    ["3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy", "btc"],
    ["bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", "btc"],
    ["BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ", "btc"],
    ["bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297", "btc"],
    ["LQTpS3VaYTjCr4s9Y1t5zbeY26zevf7Fb3", "ltc"],
    [withVersion(0x32), "ltc"],
    [withBech32("ltc"), "ltc"],
    ["DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L", "doge"],
    ["bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a", "bch"],
    ["qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a", "bch"],
    ["BITCOINCASH:QPM2QSZNHKS23Z7629MMS6S4CWEF74VCWVY22GDX6A", "bch"],
    [withVersion(0x1c, 0xb8), "zec"],
    [withVersion(0x1c, 0xbd), "zec"],
    [withVersion(0x20, 0x89), "zen"],
    ["rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh", "xrp"],
    ["rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe", "xrp"],
    ["GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7", "xlm"],
    ["VCMJKWOY5P5P7SKMZFFOCEROPJCZOTIJMNIYNUCKH7LRO45JMJP6UYBIJA", "algo"],
    ["EQDtFpEwcFAEcRe5mLVh2N6C0x-_hJEM7W61_JLnSF74p4q2", "ton"],
    ["UQDtFpEwcFAEcRe5mLVh2N6C0x-_hJEM7W61_JLnSF74p9dz", "ton"],
    ["EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N", "ton"],
    [`0:${"ab".repeat(32)}`, "ton"],
    ["tz1VSUr8wwNhLAzempoch5d6hLRiTh8Cjcjb", "xtz"],
    ["KT1BEqzn5Wx8uJrZNvuS9DVHmLvG9td3fDLi", "xtz"],
    ["15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5", "dot"],
    ["5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY", "tao"],
    ["addr1vx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzers66hrl8", "ada"],
    ["cosmos1hsk6jryyqjfhp5dhc55tc9jtckygx0eph6dd02", "atom"],
    [withBech32("dydx"), "dydx"],
    [withBech32("inj"), "inj"],
    [withBech32("sei"), "sei"],
    [withBech32("zil"), "zil"],
    [withBech32("bnb"), "bnb"],
    [withBech32("cro"), "cro"],
    [`X-${withBech32("avax")}`, "avax"],
    ["f1abjxfbp274xpdqcpuaykwkfb43omjotacm2p3za", "fil"],
    ["f012345678", "fil"],
    ["0.0.1234567", "hbar"],
    ["ryjl3-tyaaa-aaaaa-aaaba-cai", "icp"],
    ["aurora.near", "near"],
    [`xdc${"7".repeat(40)}`, "xdc"],
    ["0x49d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7", "strk"],
    ["TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", "sol"],
    ["So11111111111111111111111111111111111111112", "sol"],
    ["11111111111111111111111111111111", "sol"],
  ];

  it.each(cases)("%s → %s", (address, network) => {
    expect(detectNetworks(address)).toEqual({ kind: "single", network });
  });

  it("ignores surrounding spaces", () => {
    expect(single("  TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t ")).toBe("trx");
  });
});

describe("detectNetworks: several networks", () => {
  it("an EVM address fits every EVM network, Ethereum first", () => {
    for (const address of [
      "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
      "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
      "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
      "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
      "0x52908400098527886E0F7030069857D2E4169EE7",
      "0xde709f2102306220921060314715629080e2fb77",
    ]) {
      expect(detectNetworks(address)).toEqual({ kind: "ambiguous", candidates: [...EVM_TICKERS] });
    }
    expect(EVM_TICKERS[0]).toBe("eth");
    expect(EVM_TICKERS).not.toContain("bnb");
  });

  it("0x and 64 hex digits: Aptos, Sui or Starknet", () => {
    expect(detectNetworks(`0x${"a1".repeat(32)}`)).toEqual({
      kind: "ambiguous",
      candidates: ["apt", "sui", "strk"],
    });
  });

  it("64 hex digits without 0x: ICP account or NEAR implicit account", () => {
    expect(detectNetworks("c3".repeat(32))).toEqual({ kind: "ambiguous", candidates: ["icp", "near"] });
  });
});

describe("detectNetworks: unknown", () => {
  it.each([
    ["a TRON address with a typo", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u"],
    ["a mixed-case EVM address whose EIP-55 checksum fails", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD"],
    ["a Bitcoin address with a typo", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb"],
    ["a word", "hello"],
    ["an empty string", ""],
    ["an address with a space", "TR7NHqjeKQxGTCi8q8ZY4pL8 otSzgjLj6t"],
    ["a TON address with a typo", "EQDtFpEwcFAEcRe5mLVh2N6C0x-_hJEM7W61_JLnSF74p4q3"],
    ["a cashaddr in mixed case", "bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6A"],
  ])("%s", (_label, address) => {
    expect(detectNetworks(address)).toEqual({ kind: "unknown" });
  });
});
