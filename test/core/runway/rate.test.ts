import Big from "big.js";
import { describe, expect, it } from "vitest";
import { hoursLeft, keepSample, rateOf } from "../../../src/core/activity/rate.js";
import { digestDayAt, msUntilDigest } from "../../../src/core/digest/schedule.js";
import { createMemoryStore } from "../../../src/store/memory-store.js";

const T0 = Date.parse("2025-03-01T12:00:00Z");
const HOUR = 3_600_000;

describe("spend rate", () => {
  it("uses the bot's last 24 h while the account has been watched for less than 30 minutes", async () => {
    const store = createMemoryStore({ now: () => T0 });
    const samples = await keepSample(store, T0, "100");
    const rate = rateOf(new Big(48), samples);
    expect(rate.trxPerHour.toFixed()).toBe("2");
    expect(rate.service).toBeUndefined();
    expect(hoursLeft("10", rate)?.toFixed()).toBe("5");
  });

  it("takes the account's total_trx_spent growth when it is larger: spends outside the bot count", async () => {
    const store = createMemoryStore({ now: () => T0 });
    await keepSample(store, T0, "100");
    const samples = await keepSample(store, T0 + 2 * HOUR, "120");
    const rate = rateOf(new Big(24), samples);
    expect(rate.trxPerHour.toFixed()).toBe("10");
    expect(rate.service?.spentTrx.toFixed()).toBe("20");
    expect(rateOf(new Big(480), samples).trxPerHour.toFixed()).toBe("20");
  });

  it("keeps a day of samples and no runway without spending", async () => {
    const store = createMemoryStore({ now: () => T0 });
    await keepSample(store, T0 - 30 * HOUR, "1");
    const samples = await keepSample(store, T0, "5");
    expect(samples).toEqual([{ at: T0, spentTrx: "5" }]);
    expect(hoursLeft("10", rateOf(new Big(0), samples))).toBeUndefined();
  });
});

describe("digest schedule", () => {
  it("waits for the next HH:MM UTC and covers the UTC day before it", () => {
    expect(msUntilDigest(T0, 8 * 60)).toBe(20 * HOUR);
    expect(msUntilDigest(T0, 13 * 60)).toBe(HOUR);
    expect(msUntilDigest(T0, 12 * 60)).toBe(24 * HOUR);
    expect(digestDayAt(Date.parse("2025-03-02T08:00:00Z"), 8 * 60)).toBe("2025-03-01");
    expect(digestDayAt(Date.parse("2025-03-02T15:00:00Z"), 8 * 60)).toBe("2025-03-01");
  });
});
