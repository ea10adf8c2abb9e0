import { decode } from "fast-png";
import { describe, expect, it } from "vitest";
import { postDailyDigest } from "../../../src/core/digest/schedule.js";
import type { ConversationRef } from "../../../src/core/invocation.js";
import type { ImageAttachment, Reply } from "../../../src/core/reply.js";
import { checkRunway } from "../../../src/core/runway/check.js";
import { operator, replyText, viewer } from "../../support/core-harness.js";
import { freshAddress, quote, useSpendHarness } from "../../support/spend-harness.js";

/**
 * `chart …` through the real core over the sandbox's price list and account, and the pictures the
 * scheduled digest and the runway alert carry. The sandbox is at noon UTC: energy_5m "Day 06-18"
 * (45 SUN) is current and "Night 00-06" (38 SUN) the cheapest; energy_1h "Peak 08-20" (65) and
 * "Off-peak 20-08" (55), which crosses midnight.
 */
const spend = useSpendHarness();
const SUN = 1_000_000;
const alerts: ConversationRef[] = [{ platform: "slack", id: "C0ALERTS" }];

const picturesOf = (reply: Reply): ImageAttachment[] =>
  reply.blocks.flatMap((b) => (b.type === "image" ? [b.image] : []));

/** The one picture of a reply, a PNG of 1200×600; a chart's own reply is summed up by the picture's line. */
function onePicture(reply: Reply, own = true): ImageAttachment {
  const pictures = picturesOf(reply);
  expect(pictures, replyText(reply)).toHaveLength(1);
  const picture = pictures[0] as ImageAttachment;
  const png = decode(picture.png);
  expect([png.width, png.height]).toEqual([1200, 600]);
  if (own) expect(reply.summary).toBe(picture.summary);
  expect(reply.visibility).toBe("public");
  return picture;
}

describe("chart prices", () => {
  it("posts the day's periods of energy_5m by default, naming now and the cheapest from the list", async () => {
    const h = await spend.setup();
    const picture = onePicture(await h.run(viewer, "chart prices"));
    expect(picture.summary).toBe(
      "energy_5m: Day 06-18 45 SUN now; cheapest Night 00-06 38 SUN from 00:00 UTC",
    );
    expect(picture.filename).toMatch(/^prices-energy_5m-\d{4}-\d\d-\d\d\.png$/);
  });

  it("charts energy_1h, whose cheap period crosses midnight", async () => {
    const h = await spend.setup();
    const picture = onePicture(await h.run(viewer, "chart prices energy_1h"));
    expect(picture.summary).toBe(
      "energy_1h: Peak 08-20 65 SUN now; cheapest Off-peak 20-08 55 SUN from 20:00 UTC",
    );
  });

  it("answers bad input with one line naming what is accepted", async () => {
    const h = await spend.setup();
    const cases: [string, string][] = [
      ["chart prices bandwidth", 'unknown service "bandwidth": chart prices takes energy_1h or energy_5m'],
      [
        "chart prices energy_5m energy_1h",
        "chart prices takes one service: chart prices energy_5m or chart prices energy_1h",
      ],
      ["chart spend 9", "chart spend takes 7 or 30 (days), e.g. chart spend 30"],
      ["chart balance now", "chart balance takes nothing after it"],
    ];
    for (const [line, answer] of cases) {
      const reply = await h.run(viewer, line);
      expect(reply.visibility, line).toBe("private");
      expect(replyText(reply), line).toBe(answer);
      expect(picturesOf(reply)).toEqual([]);
    }
    expect(replyText(await h.run(viewer, "chart pies"))).toMatch(
      /chart prices, chart spend or chart balance/,
    );
  });
});

describe("chart spend", () => {
  it("says so in a sentence when nothing was spent, and charts the spends by day once there are some", async () => {
    const h = await spend.setup();
    const empty = await h.run(viewer, "chart spend 30");
    expect(picturesOf(empty)).toEqual([]);
    expect(replyText(empty)).toMatch(
      /^Nothing was spent through the bot in the last 30 days \(to \d{4}-\d\d-\d\d\): no chart to draw\.$/,
    );

    const q = await quote(h, `energy ${freshAddress("chart")} 65k`);
    await h.click(operator, q.confirm);
    const paidTrx = h.sandbox.energy.orders().reduce((sum, o) => sum + o.costSun, 0) / SUN;
    const picture = onePicture(await h.run(viewer, "chart spend"));
    expect(picture.filename).toMatch(/^spend-7d-/);
    expect(picture.summary).toMatch(
      new RegExp(`^Spent ${paidTrx} TRX over 7 days to \\d{4}-\\d\\d-\\d\\d \\(Energy ${paidTrx}\\)`),
    );
  });
});

describe("chart balance", () => {
  it("charts the balance readings with the alert levels that are set", async () => {
    const h = await spend.setup({ settings: { runway: { lowBalanceTrx: "100", alertHours: 12 } } });
    h.sandbox.account.balanceSun = 500 * SUN;
    await h.run(viewer, "balance");
    const picture = onePicture(await h.run(viewer, "chart balance"));
    expect(picture.summary).toBe(
      "Balance 500 TRX; no spending in the last 24 h, so no projection; alert below 100 TRX or under 12 h left",
    );
  });
});

describe("pictures in scheduled posts", () => {
  it("the daily digest carries the 7-day spend chart; a day with no spends in the week carries none", async () => {
    const h = await spend.setup();
    const tomorrow =
      Date.parse(`${new Date(h.deps.now()).toISOString().slice(0, 10)}T00:00:00Z`) + 86_400_000;
    expect(await postDailyDigest({ ...h.deps, now: () => tomorrow }, { atMin: 0, alerts })).toBe("posted");
    expect(picturesOf(h.notifications.at(-1)?.reply as Reply)).toEqual([]);

    const q = await quote(h, `energy ${freshAddress("chart-digest")} 65k`);
    await h.click(operator, q.confirm);
    const later = tomorrow + 86_400_000;
    // The digest at 00:00 the day after tomorrow covers tomorrow: the week still holds today's spend.
    expect(await postDailyDigest({ ...h.deps, now: () => later }, { atMin: 0, alerts })).toBe("posted");
    const posted = h.notifications.at(-1)?.reply as Reply;
    expect(replyText(posted)).toContain("Daily digest for");
    const picture = onePicture(posted, false);
    expect(picture.filename).toMatch(/^spend-7d-/);
    expect(picture.summary).toMatch(/^Spent [\d.]+ TRX over 7 days to .* \(Energy [\d.]+\)/);
  });

  it("the runway alert carries the balance chart with its levels; the recovery does not", async () => {
    const h = await spend.setup();
    const settings = { lowBalanceTrx: "100", alertHours: 12 };
    h.sandbox.account.balanceSun = 40 * SUN;
    expect(await checkRunway(h.deps, { settings, alerts })).toBe("alerted");
    const alert = h.notifications.at(-1)?.reply as Reply;
    expect(replyText(alert)).toContain("Balance running low");
    expect(onePicture(alert, false).summary).toBe(
      "Balance 40 TRX; no spending in the last 24 h, so no projection; alert below 100 TRX or under 12 h left",
    );
    h.sandbox.account.balanceSun = 600 * SUN;
    h.clock.advance(60_000);
    expect(await checkRunway(h.deps, { settings, alerts })).toBe("recovered");
    expect(picturesOf(h.notifications.at(-1)?.reply as Reply)).toEqual([]);
  });
});
