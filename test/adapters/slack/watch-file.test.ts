import { describe, expect, it } from "vitest";
import { readWatch } from "../../../src/core/watch/state.js";
import { baseSettings } from "../../support/settings.js";
import { freshAddress } from "../../support/spend-harness.js";
import { CHANNEL, messageText, OPERATOR, startSlackHarness } from "./harness.js";
import { fileShareEventBody } from "./native-payloads.js";

/**
 * `watch add` with a CSV file shared on Slack against the sandbox: the file shared with the
 * message `watch add` is read through the fake Web API (files.info, then url_private with the bot
 * token), 10 000 addresses (far over the payout's 64 KB) end in one add with one deny-list batch
 * call per 1000; a file over the download cap is refused with one line without a download.
 */
const addresses = (n: number) => Array.from({ length: n }, (_, i) => freshAddress(`slack-watch-${i}`));

describe("slack: watch add with a CSV file", () => {
  it("a 10 000-row file shared with the message watch add screen weekly: read with files.info and url_private, every address watched and re-screened weekly", async () => {
    const h = await startSlackHarness({
      settings: { watch: { ...baseSettings.watch, budgetTrx: "100" } },
    });
    const list = addresses(10_000);
    const fileId = h.fake.userFile("watch.csv", Buffer.from(`\uFEFF${list.join("\r\n")}\r\n`));
    await h.post(fileShareEventBody("watch add screen weekly", fileId, { user: OPERATOR }));
    await h.settle();
    expect(h.fake.calls("files.info")).toHaveLength(1);
    // The fake answers url_private with a login page unless the bot token comes as a bearer.
    expect(h.fake.calls("url_private").map((d) => d.status)).toEqual([200]);
    const posted = h.fake.channelMessages(CHANNEL).map(messageText);
    expect(posted).toEqual([
      expect.stringContaining("Watching 10000 addresses in this conversation (10000 new, 0 already watched)"),
    ]);
    expect(posted[0]).toContain("AML re-screened weekly");
    expect(h.sandbox.calls("compliance.batch")).toHaveLength(10);
    expect(h.sandbox.calls("compliance.lookup")).toEqual([]);
    expect((await h.store.setMembers("watch:all")).sort()).toEqual([...list].sort());
    expect(await readWatch(h.store, { platform: "slack", id: CHANNEL }, list[9_999]!)).toMatchObject({
      screen: "weekly",
    });
  }, 30_000);

  it("a file over 512 KB: files.info only, no download; one line, nothing stored or asked", async () => {
    const h = await startSlackHarness();
    const big = Buffer.alloc(600 * 1024, "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t\n");
    const fileId = h.fake.userFile("watch.csv", big);
    await h.post(fileShareEventBody("watch add", fileId, { user: OPERATOR }));
    await h.settle();
    expect(h.fake.calls("files.info")).toHaveLength(1);
    expect(h.fake.calls("url_private")).toEqual([]);
    expect(h.fake.ephemerals(OPERATOR.id).map((m) => m.text)).toEqual([
      expect.stringMatching(/^watch\.csv is too large \(600 KB\): share a \.csv file of one address per row/),
    ]);
    expect(await h.store.setMembers("watch:all")).toEqual([]);
    expect(h.sandbox.calls("compliance.batch")).toEqual([]);
  });
});
