import { describe, expect, it } from "vitest";
import { parseEnergyArgs } from "../../../src/core/energy/energy-args.js";
import {
  checkEnergyRange,
  ENERGY_ORDER_MAX_ENERGY,
  ENERGY_ORDER_MIN_ENERGY,
  energyOrderRoute,
  ORCHESTRATOR_MAX_ENERGY_PER_ADDRESS,
  ORCHESTRATOR_MIN_ENERGY_PER_ADDRESS,
  ORDER5M_MAX_ENERGY,
  ORDER5M_MIN_ENERGY,
  parseEnergyAmount,
} from "../../../src/core/parse/amount.js";
import { errorOf, parsed } from "./error-line.js";

const ACCEPTED = ": use a whole number like 65000, 65k or 1.2m";
const RANGE = ": energy orders take 61,000 to 50,000,000 energy (61k to 50m)";
const TRON = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";

describe("energy range constants", () => {
  it("match the spec", () => {
    expect([ORDER5M_MIN_ENERGY, ORDER5M_MAX_ENERGY]).toEqual([61_000, 650_000]);
    expect([ORCHESTRATOR_MIN_ENERGY_PER_ADDRESS, ORCHESTRATOR_MAX_ENERGY_PER_ADDRESS]).toEqual([
      61_000, 50_000_000,
    ]);
    expect([ENERGY_ORDER_MIN_ENERGY, ENERGY_ORDER_MAX_ENERGY]).toEqual([61_000, 50_000_000]);
  });
});

describe("parseEnergyAmount accepts", () => {
  it.each([
    ["65000", 65_000],
    ["65,000", 65_000],
    ["65_000", 65_000],
    ["1,000,000", 1_000_000],
    ["1_000_000", 1_000_000],
    ["65k", 65_000],
    ["65K", 65_000],
    ["131k", 131_000],
    ["1.2m", 1_200_000],
    ["1.2M", 1_200_000],
    ["1m", 1_000_000],
    ["0.5m", 500_000],
    ["65.5k", 65_500],
    ["1.250k", 1_250],
    ["65000.0", 65_000],
    [" 65k ", 65_000],
    ["50m", 50_000_000],
    ["7", 7],
  ])("%s → %d", (text, amount) => {
    expect(parsed(parseEnergyAmount(text))).toBe(amount);
  });
});

describe("parseEnergyAmount rejects", () => {
  it.each([
    ["65q", `"65q" is not an amount${ACCEPTED}`],
    ["abc", `"abc" is not an amount${ACCEPTED}`],
    ["65 k", `"65 k" is not an amount${ACCEPTED}`],
    ["1,5m", `"1,5m" is not an amount${ACCEPTED}`],
    ["6,5000", `"6,5000" is not an amount${ACCEPTED}`],
    ["65,00", `"65,00" is not an amount${ACCEPTED}`],
    ["1.2.3k", `"1.2.3k" is not an amount${ACCEPTED}`],
    [".5m", `".5m" is not an amount${ACCEPTED}`],
    ["6.5e4", `"6.5e4" is not an amount${ACCEPTED}`],
    ["+65000", `"+65000" is not an amount${ACCEPTED}`],
    ["65kk", `"65kk" is not an amount${ACCEPTED}`],
    ["1b", `"1b" is not an amount${ACCEPTED}`],
    ["65000.5", `"65000.5" is not a whole number of energy${ACCEPTED}`],
    ["1.2345k", `"1.2345k" is not a whole number of energy${ACCEPTED}`],
    ["1.0000005m", `"1.0000005m" is not a whole number of energy${ACCEPTED}`],
    ["0", `"0" is zero${ACCEPTED}`],
    ["0k", `"0k" is zero${ACCEPTED}`],
    ["0.0m", `"0.0m" is zero${ACCEPTED}`],
    ["-65000", `"-65000" is negative${ACCEPTED}`],
    ["-65k", `"-65k" is negative${ACCEPTED}`],
    ["", `no amount given${ACCEPTED}`],
    ["99999999999999999999m", `"99999999999999999999m" is far too large${ACCEPTED}`],
  ])("%s", (text, line) => {
    expect(errorOf(parseEnergyAmount(text))).toBe(line);
  });

  it("echoes junk on one line, cut short", () => {
    const error = errorOf(parseEnergyAmount(`65000\n${"9".repeat(200)}`));
    expect(error).toMatch(/^"650009+…" is not an amount \(it contains a line break \(U\+000A\)\): /);
  });
});

describe("checkEnergyRange", () => {
  it("accepts 61,000 to 50,000,000", () => {
    for (const amount of [61_000, 65_000, 650_000, 650_001, 50_000_000])
      expect(parsed(checkEnergyRange(amount))).toBe(amount);
  });

  it("names the range when outside it", () => {
    expect(errorOf(checkEnergyRange(60_999))).toBe(`60,999 energy is below the minimum${RANGE}`);
    expect(errorOf(checkEnergyRange(7))).toBe(`7 energy is below the minimum${RANGE}`);
    expect(errorOf(checkEnergyRange(50_000_001))).toBe(`50,000,001 energy is above the maximum${RANGE}`);
    expect(errorOf(checkEnergyRange(65_000.5))).toBe(`65000.5 is not a whole number of energy${RANGE}`);
  });

  it("routes what one 5-minute order takes to order5m, the rest to the orchestrator", () => {
    expect(energyOrderRoute(61_000)).toBe("order5m");
    expect(energyOrderRoute(650_000)).toBe("order5m");
    expect(energyOrderRoute(650_001)).toBe("orchestrator");
    expect(energyOrderRoute(50_000_000)).toBe("orchestrator");
  });
});

describe("parseEnergyArgs", () => {
  it("parses address, amount and route", () => {
    expect(parsed(parseEnergyArgs([TRON, "65k"]))).toEqual({
      address: TRON,
      amount: 65_000,
      route: "order5m",
    });
    expect(parsed(parseEnergyArgs([TRON, "1.2m"]))).toEqual({
      address: TRON,
      amount: 1_200_000,
      route: "orchestrator",
    });
  });

  it("rejects missing, extra and bad words with the parser's line", () => {
    const usage = ": use energy <address> <amount>, e.g. energy TF6qg4pGgrMviRrWwUomrfxbPTsxjKrP7b 65k";
    expect(errorOf(parseEnergyArgs([]))).toBe(`no address and amount given${usage}`);
    expect(errorOf(parseEnergyArgs([TRON]))).toBe(`no amount given${usage}`);
    expect(errorOf(parseEnergyArgs([TRON, "65", "000"]))).toBe(
      `too many words after energy (3), write the amount without spaces${usage}`,
    );
    expect(errorOf(parseEnergyArgs(["TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u", "65k"]))).toContain(
      "checksum failed",
    );
    expect(errorOf(parseEnergyArgs([TRON, "65q"]))).toBe(`"65q" is not an amount${ACCEPTED}`);
    expect(errorOf(parseEnergyArgs([TRON, "60k"]))).toBe(`60,000 energy is below the minimum${RANGE}`);
  });
});
