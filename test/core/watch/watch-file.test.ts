import { describe, expect, it } from "vitest";
import type { WatchSettings } from "../../../src/core/deps.js";
import type { SharedFile } from "../../../src/core/invocation.js";
import type { Reply } from "../../../src/core/reply.js";
import { readWatch } from "../../../src/core/watch/state.js";
import { channel, operator, replyText, viewer } from "../../support/core-harness.js";
import { baseSettings } from "../../support/settings.js";
import { freshAddress, type SpendHarness, useSpendHarness } from "../../support/spend-harness.js";

/**
 * `watch add` with a CSV file over the real core (the sandbox over HTTP, the memory store): the
 * file ends in the same path as `watch add T1 T2 …` (one deny-list batch call per 1000, no open
 * lookup), a second column is the label, and a file refused as a whole stores and asks nothing.
 */
const spend = useSpendHarness();

async function setup(watch: Partial<WatchSettings> = {}): Promise<SpendHarness> {
  return spend.setup({ settings: { watch: { ...baseSettings.watch, ...watch } } });
}

function csvFile(body: string | Uint8Array, name = "watch.csv", mimeType = "text/csv"): SharedFile {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  return { name, mimeType, sizeBytes: bytes.byteLength, bytes };
}

const addWithFile = (h: SpendHarness, file: SharedFile, text = "watch add", actor = operator) =>
  h.core.handle({ kind: "command", actor, conversation: channel, text, file });

/** A valid-looking address with its last character changed: the checksum fails. */
const brokenChecksum = (address: string): string =>
  address.slice(0, -1) + (address.endsWith("a") ? "b" : "a");

async function nothingDone(h: SpendHarness, reply: Reply): Promise<void> {
  expect(reply.visibility).toBe("private");
  expect(await h.store.setMembers("watch:all")).toEqual([]);
  expect(h.sandbox.calls("compliance.batch")).toEqual([]);
  expect(h.sandbox.calls("compliance.lookup")).toEqual([]);
}

describe("watch add with a CSV file", () => {
  it("a 10 000-row file (BOM, header, CRLF, blank lines, repeats, labels): one add, 10 batch calls, every watch stored", async () => {
    const h = await setup();
    const addresses = Array.from({ length: 10_000 }, (_, i) => freshAddress(`file-${i}`));
    h.sandbox.screening.setCategory(addresses[9_999]!, "usdt_frozen");
    const rows = addresses.map((a, i) => (i === 0 ? `${a},"hot wallet, main"` : i === 1 ? `${a};cold` : a));
    const body = `\uFEFFaddress,label\r\n${rows.join("\r\n")}\r\n\r\n${addresses[2]}\r\n${addresses[0]},other\r\n`;
    expect(body.length).toBeGreaterThan(64 * 1024);

    const reply = await addWithFile(h, csvFile(body));
    const said = replyText(reply);
    expect(reply.visibility).toBe("public");
    expect(said).toContain("Watching 10000 addresses in this conversation (10000 new, 0 already watched)");
    expect(said).toContain("Deny list now: 9999 clean, 1 listed");
    expect(said).toContain(`${addresses[9_999]} usdt_frozen`);
    const batches = h.sandbox.calls("compliance.batch");
    expect(batches).toHaveLength(10);
    expect(h.sandbox.calls("compliance.lookup")).toEqual([]);
    expect((await h.store.setMembers("watch:all")).sort()).toEqual([...addresses].sort());
    expect(replyText(await h.run(viewer, "watch list"))).toContain("Watched here: 10000 addresses");
    // The second column is the label; a repeated row's label does not replace the first.
    expect((await readWatch(h.store, channel, addresses[0]!))?.label).toBe("hot wallet, main");
    expect((await readWatch(h.store, channel, addresses[1]!))?.label).toBe("cold");
    expect((await readWatch(h.store, channel, addresses[2]!))?.label).toBeUndefined();
  }, 30_000);

  it("options typed with the command apply (screen weekly); a watch already there keeps its label unless the file gives one", async () => {
    const h = await setup({ budgetTrx: "100" });
    const [a, b, c] = [freshAddress("file-a"), freshAddress("file-b"), freshAddress("file-c")];
    await h.run(operator, `watch add ${a} vendor`);
    await h.run(operator, `watch add ${b} old name`);
    const reply = await addWithFile(h, csvFile(`${a}\n${b},new name\n${c}\n`), "watch add screen weekly");
    expect(replyText(reply)).toContain(
      "Watching 3 addresses in this conversation (1 new, 2 already watched)",
    );
    expect(replyText(reply)).toContain("AML re-screened weekly");
    expect(await readWatch(h.store, channel, a)).toMatchObject({ label: "vendor", screen: "weekly" });
    expect(await readWatch(h.store, channel, b)).toMatchObject({ label: "new name", screen: "weekly" });
    expect(await readWatch(h.store, channel, c)).toMatchObject({ screen: "weekly" });
  });

  it("reads the row forms of CSV and of chat: quotes, semicolons, tabs, or a label after a space", async () => {
    const h = await setup();
    const [a, b, c, d, e] = ["a", "b", "c", "d", "e"].map((tag) => freshAddress(`row-${tag}`)) as [
      string,
      string,
      string,
      string,
      string,
    ];
    const body = `"${a}"\n${b}\tdesk "B"\n"${c}";"Smith, J ""jr"""\n${d} hot wallet\n${e},label,ignored,columns\n`;
    expect(replyText(await addWithFile(h, csvFile(body)))).toContain("Watching 5 addresses");
    const labelOf = async (address: string) => (await readWatch(h.store, channel, address))?.label;
    expect(await labelOf(a)).toBeUndefined();
    expect(await labelOf(b)).toBe('desk "B"');
    expect(await labelOf(c)).toBe('Smith, J "jr"');
    expect(await labelOf(d)).toBe("hot wallet");
    expect(await labelOf(e)).toBe("label");
  });

  it.each([
    [
      "a bad row",
      () =>
        csvFile(
          `address\n${freshAddress("ok")}\n\n${brokenChecksum(freshAddress("typo"))}\n${freshAddress("ok")}\n`,
        ),
      /^watch\.csv line 4: ".*" is not a valid TRON address \(checksum failed, look for a typo\): a TRON address starts with T and has 34 characters; nothing was added$/,
    ],
    [
      "a label nobody can see",
      () => csvFile(`${freshAddress("ok")},\u200B\n`),
      /^watch\.csv line 1: the label has no visible character .*; nothing was added$/,
    ],
    [
      "not CSV",
      () => csvFile("PK\u0003\u0004", "watch.xlsx", "application/vnd.ms-excel"),
      /^watch\.xlsx is not a CSV file: share a \.csv file of one address per row /,
    ],
    [
      "not UTF-8",
      () => csvFile(new Uint8Array([0x54, 0xff, 0xfe, 0x0a])),
      /^watch\.csv is not UTF-8 text: share a \.csv file/,
    ],
    [
      "too large (the adapter did not download it)",
      () => ({ name: "watch.csv", mimeType: "text/csv", sizeBytes: 600_000 }),
      /^watch\.csv is too large \(586 KB\): share a \.csv file .*at most 10000 addresses and 512 KB\)$/,
    ],
    [
      "unreadable",
      () => ({ name: "watch.csv", sizeBytes: 0, unreadable: "Slack said file_not_found" }),
      /^the file could not be read \(Slack said file_not_found\): share a \.csv file/,
    ],
    ["empty", () => csvFile("address,label\n\n\r\n"), /^watch\.csv has no addresses: share a \.csv file/],
    [
      "more than 10 000 addresses",
      () => csvFile(Array.from({ length: 10_001 }, (_, i) => freshAddress(`many-${i}`)).join("\n")),
      /^watch\.csv has 10001 addresses, at most 10000 are taken: split it$/,
    ],
  ] as [string, () => SharedFile, RegExp][])(
    "refuses %s with one line; nothing stored or asked",
    async (_, file, expected) => {
      const h = await setup();
      const reply = await addWithFile(h, file());
      expect(replyText(reply)).toMatch(expected);
      expect(replyText(reply)).not.toContain("\n");
      await nothingDone(h, reply);
    },
  );

  it("refuses addresses typed beside the file, a file with watch remove, a path typed on a chat platform, and a viewer's file", async () => {
    const h = await setup();
    const address = freshAddress("typed");
    const file = csvFile(`${freshAddress("in-file")}\n`);
    expect(replyText(await addWithFile(h, file, `watch add ${address}`))).toBe(
      "with a CSV file, write watch add alone (screen daily|weekly allowed): the addresses come from the file",
    );
    expect(replyText(await addWithFile(h, file, `watch remove ${address}`))).toBe(
      "a CSV file goes with watch add only: share it with the message watch add",
    );
    expect(replyText(await h.run(operator, "watch add @watch.csv"))).toMatch(
      /^a file path works on the console only: share the CSV file with the message watch add/,
    );
    expect(replyText(await addWithFile(h, file, "watch add", viewer))).toMatch(
      /watch add needs the operator role/,
    );
    expect(await h.store.setMembers("watch:all")).toEqual([]);
    expect(h.sandbox.calls("compliance.batch")).toEqual([]);
  });

  it("help watch says a CSV file is accepted, and how each platform shares it", async () => {
    const h = await setup();
    const help = replyText(await h.run(viewer, "help watch"));
    expect(help).toContain("(a list or a CSV file)");
    expect(help).toContain(
      "A CSV file shared with the message watch add (Slack file, Telegram document with the caption /watch add; console: watch add @file.csv)",
    );
  });
});
