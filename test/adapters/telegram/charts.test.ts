import { decode } from "fast-png";
import { describe, expect, it } from "vitest";
import { PRIVATE_CHAT, startTelegramHarness } from "./harness.js";

/**
 * `/chart …` on Telegram: real grammY against the fake Bot API, which checks a photo as Telegram
 * does (a readable image, its size, a caption of ≤ 1024 characters).
 */
const SUMMARY = "energy_5m: Day 06-18 45 SUN now; cheapest Night 00-06 38 SUN from 00:00 UTC";

describe("telegram: charts", () => {
  it("/chart prices sends a photo of 1200×600 with the summary as its caption", async () => {
    const h = await startTelegramHarness({ sandbox: { now: () => Date.parse("2025-03-01T12:00:00Z") } });
    await h.say("/chart prices");
    await h.fake.waitFor(() => h.fake.calls("sendPhoto").length === 1, 5_000);
    await h.settle();
    const messages = h.fake.messages(PRIVATE_CHAT);
    expect(messages).toHaveLength(1);
    const photo = messages[0]?.photo;
    expect(photo).toMatchObject({ width: 1200, height: 600, caption: SUMMARY });
    expect(photo?.filename).toMatch(/^prices-energy_5m-.*\.png$/);
    const png = decode(new Uint8Array(photo?.bytes ?? []));
    expect([png.width, png.height]).toEqual([1200, 600]);
    expect(h.fake.calls("sendMessage")).toEqual([]);
  });

  it("no data is a sentence, not an empty picture; bad input one line", async () => {
    const h = await startTelegramHarness();
    await h.say("/chart spend");
    await h.say("/chart prices energy_2h");
    await h.settle();
    expect(h.fake.messages(PRIVATE_CHAT).map((m) => m.text)).toEqual([
      expect.stringMatching(/^Nothing was spent through the bot in the last 7 days/),
      'unknown service "energy_2h": chart prices takes energy_1h or energy_5m',
    ]);
    expect(h.fake.calls("sendPhoto")).toEqual([]);
  });
});
