import { describe, expect, it } from "vitest";
import { freshAddress } from "../../support/spend-harness.js";
import { GROUP_CHAT, OPERATOR, startTelegramHarness, type TelegramHarness } from "./harness.js";
import { documentUpdate } from "./updates.js";

/**
 * `watch add` with a CSV document on Telegram against the sandbox: the document with the caption
 * `/watch add` is read through the fake Bot API (getFile, then the file URL), 10 000 addresses
 * (far over the payout's 64 KB) end in one add, one deny-list batch call per 1000; a document
 * over the download cap is refused with one line before its body is read, and nothing is stored.
 */
const addresses = (n: number) => Array.from({ length: n }, (_, i) => freshAddress(`tg-watch-${i}`));

async function sendCsv(
  h: TelegramHarness,
  body: string | Buffer,
  o: { caption?: string; sizedUpdate?: boolean; sizedFile?: boolean } = {},
): Promise<void> {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const { file_size, ...file } = h.fake.userFile("watch.csv", bytes, { sized: o.sizedFile ?? true });
  const document = {
    ...file,
    ...((o.sizedUpdate ?? true) && { file_size }),
    file_name: "watch.csv",
    mime_type: "text/csv",
  };
  await h.postUpdate(documentUpdate(o.caption ?? "/watch add", document, GROUP_CHAT, OPERATOR));
  await h.settle();
}

const texts = (h: TelegramHarness) => h.fake.messages(GROUP_CHAT).map((m) => m.text);

describe("telegram: watch add with a CSV document", () => {
  it("a 10 000-row document with the caption /watch add: read with getFile and the file URL, every address watched", async () => {
    const h = await startTelegramHarness();
    const list = addresses(10_000);
    await sendCsv(h, `address,label\n${list.map((a, i) => `${a},w${i}`).join("\n")}\n`);
    expect(h.fake.calls("getFile")).toHaveLength(1);
    expect(h.fake.calls("file")).toHaveLength(1);
    expect(texts(h)).toEqual([
      expect.stringMatching(
        /^Watching 10000 addresses in this conversation \(10000 new, 0 already watched\)/,
      ),
    ]);
    expect(h.sandbox.calls("compliance.batch")).toHaveLength(10);
    expect(h.sandbox.calls("compliance.lookup")).toEqual([]);
    expect((await h.store.setMembers("watch:all")).sort()).toEqual([...list].sort());
  }, 30_000);

  it("a document over 512 KB whose size comes only from getFile is not downloaded; one line, nothing stored", async () => {
    const h = await startTelegramHarness();
    const big = Buffer.alloc(600 * 1024, "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t\n");
    await sendCsv(h, big, { sizedUpdate: false });
    expect(h.fake.calls("getFile")).toHaveLength(1);
    expect(h.fake.calls("file")).toEqual([]);
    expect(texts(h)).toEqual([
      expect.stringMatching(/^watch\.csv is too large \(600 KB\): share a \.csv file/),
    ]);
    expect(await h.store.setMembers("watch:all")).toEqual([]);
    expect(h.sandbox.calls("compliance.batch")).toEqual([]);
  });

  it("a document of unknown size over 512 KB is not read past the cap; one line, nothing stored", async () => {
    const h = await startTelegramHarness();
    const big = Buffer.alloc(600 * 1024, "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t\n");
    await sendCsv(h, big, { sizedUpdate: false, sizedFile: false });
    expect(h.fake.calls("file")).toHaveLength(1);
    expect(texts(h)).toEqual([
      expect.stringMatching(/^watch\.csv is too large \(\d+ KB\): share a \.csv file/),
    ]);
    expect(await h.store.setMembers("watch:all")).toEqual([]);
    expect(h.sandbox.calls("compliance.batch")).toEqual([]);
  });

  it("a bad row refuses the whole document, naming its line", async () => {
    const h = await startTelegramHarness();
    const [a, b] = addresses(2);
    await sendCsv(h, `${a}\n${b}\n0x52908400098527886E0F7030069857D2E4169EE7\n`);
    expect(texts(h)).toEqual([
      'watch.csv line 3: "0x52908400098527886E0F7030069857D2E4169EE7" is not a TRON address (it does not start with T): a TRON address starts with T and has 34 characters; nothing was added',
    ]);
    expect(await h.store.setMembers("watch:all")).toEqual([]);
    expect(h.sandbox.calls("compliance.batch")).toEqual([]);
  });
});
