import { afterEach, describe, expect, it } from "vitest";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { messageText } from "../adapters/slack/harness.js";
import { createWorld, eventually } from "../support/app-world.js";
import { testRedis } from "../support/redis.js";

/**
 * Many single `watch add <address>` commands at once from many Slack channels, the whole bot
 * (`startApp`) on Redis and the sandbox enforcing the service's limits (open lookup 10/s and
 * 300/min per IP): their first deny-list verdicts come from shared batch calls, not one open
 * lookup each, so all are answered at once, each with its own address's verdict.
 */
const redis = testRedis();
afterEach(() => redis.cleanup());

const ADDS = 120;
const CHANNELS = 12;
const channelOf = (i: number) => `C0WC${i % CHANNELS}`;

describe("single watch adds arriving together", () => {
  it("are all answered with the right verdicts from a few batch calls, zero 429s", async () => {
    const w = await createWorld({
      sandbox: { enforceRateLimits: true, screening: { demoData: false } },
      redis: { url: redis.url, prefix: redis.prefix },
    });
    const bot = await w.start();
    const addresses = Array.from({ length: ADDS }, (_, i) => tronAddress(`watch-co-${process.pid}-${i}`));
    const frozen = new Set(addresses.filter((_, i) => i % 10 === 3));
    const listed = new Set(addresses.filter((_, i) => i % 10 === 6));
    for (const a of frozen) w.sandbox.screening.setCategory(a, "usdt_frozen");
    for (const a of listed) {
      w.sandbox.screening.setCategory(a, "aml_risk", { reason_code: "OFAC_SDN", label: "OFAC SDN list" });
    }
    w.sandbox.clearCalls();

    const acks = await Promise.all(
      addresses.map((a, i) => bot.command(`/watch add ${a} w${i}`, { channel: channelOf(i) })),
    );
    expect(acks.map((r) => r.status)).toEqual(addresses.map(() => 200));
    const answers = await eventually(() => {
      const found = addresses.map((_, i) =>
        w.slack
          .channelMessages(channelOf(i))
          .map(messageText)
          .find((t) => t.includes(`Watching w${i} `)),
      );
      return found.every((t) => t !== undefined) && (found as string[]);
    }, `all ${ADDS} add replies`);

    addresses.forEach((a, i) => {
      const reply = answers[i] as string;
      expect(reply).toContain(a);
      const expected = frozen.has(a)
        ? "usdt_frozen"
        : listed.has(a)
          ? "aml_risk (BLOCK, OFAC_SDN: OFAC SDN list)"
          : "clean";
      expect(reply).toMatch(new RegExp(`Deny list now\\W+${expected.replace(/[()]/g, "\\$&")}`));
    });
    const lookups = w.sandbox.calls("compliance.lookup");
    const batches = w.sandbox.calls("compliance.batch");
    // Open lookups only for the ones that came alone; the rest were asked in batches.
    expect(lookups.length).toBeLessThanOrEqual(10);
    expect(batches.length).toBeGreaterThan(0);
    expect(batches.length).toBeLessThan(ADDS / 2);
    const asked = [
      ...lookups.map((c) => c.path.split("/").at(-1)),
      ...batches.flatMap((c) => (c.body as { addresses: string[] }).addresses),
    ];
    expect(new Set(asked)).toEqual(new Set(addresses));
    expect(w.sandbox.calls().filter((c) => c.status === 429)).toEqual([]);
  }, 60_000);
});
