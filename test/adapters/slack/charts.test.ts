import { decode } from "fast-png";
import { describe, expect, it } from "vitest";
import { image, publicReply } from "../../../src/core/index.js";
import { CHANNEL, messageText, startSlackHarness, VIEWER } from "./harness.js";

/**
 * `/chart …` on Slack: real Bolt against the fake Web API, the sandbox's price list. The picture
 * goes up by the files flow (upload URL with the alt text, the bytes, complete into the
 * conversation with the summary as its comment); a thread gets it in the thread.
 */
const SUMMARY = "energy_5m: Day 06-18 45 SUN now; cheapest Night 00-06 38 SUN from 00:00 UTC";

describe("slack: charts", () => {
  it("/chart prices uploads a 1200×600 PNG into the channel, its summary as alt text and comment", async () => {
    const h = await startSlackHarness({ sandbox: { now: () => Date.parse("2025-03-01T12:00:00Z") } });
    await h.command("/chart prices", { user: VIEWER });
    await h.settle();

    const [asked] = h.fake.calls("files.getUploadURLExternal");
    expect(asked?.params).toMatchObject({
      filename: expect.stringMatching(/^prices-energy_5m-.*\.png$/),
      alt_txt: SUMMARY,
    });
    expect(h.fake.calls("upload").map((c) => c.status)).toEqual([200]);
    const [complete] = h.fake.calls("files.completeUploadExternal");
    expect(complete?.params.channel_id).toBe(CHANNEL);
    expect(complete?.params.thread_ts).toBeUndefined();
    expect(complete?.params.initial_comment).toBe(SUMMARY);

    const [file] = h.fake.files();
    expect(file).toMatchObject({ shared: true, altText: SUMMARY, title: SUMMARY });
    const png = decode(new Uint8Array(file?.bytes ?? []));
    expect([png.width, png.height]).toEqual([1200, 600]);
    const post = h.fake.channelMessages(CHANNEL).find((m) => m.via === "files.completeUploadExternal");
    expect(messageText(post)).toBe(SUMMARY);
  });

  it("bad input is one private line and uploads nothing", async () => {
    const h = await startSlackHarness();
    await h.command("/chart spend 12", { user: VIEWER });
    await h.settle();
    expect(h.fake.ephemerals(VIEWER.id).map(messageText)).toEqual([
      "chart spend takes 7 or 30 (days), e.g. chart spend 30",
    ]);
    expect(h.fake.calls("files.getUploadURLExternal")).toEqual([]);
  });

  it("a picture sent later is posted into the thread it belongs to", async () => {
    const h = await startSlackHarness();
    const png = new Uint8Array(
      Buffer.from(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
        "base64",
      ),
    );
    const thread = "1700000000.000100";
    const picture = { filename: "one.png", png, width: 1, height: 1, summary: "One pixel: 1 of 1" };
    await h.adapter.send(
      { platform: "slack", id: CHANNEL, threadId: thread },
      publicReply(picture.summary, [image(picture)]),
    );
    const [complete] = h.fake.calls("files.completeUploadExternal");
    expect(complete?.params).toMatchObject({
      channel_id: CHANNEL,
      thread_ts: thread,
      initial_comment: "One pixel: 1 of 1",
    });
    expect(h.fake.files()[0]?.altText).toBe("One pixel: 1 of 1");
  });
});
