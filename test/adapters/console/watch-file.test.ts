import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { type ConsoleAdapter, createConsoleAdapter } from "../../../adapters/console/index.js";
import type { Actor, ConversationRef } from "../../../src/core/invocation.js";
import { readWatch } from "../../../src/core/watch/state.js";
import { freshAddress, type SpendHarness, useSpendHarness } from "../../support/spend-harness.js";
import { csvFile } from "./csv-file.js";

/**
 * `watch add @watch.csv` on the console against the sandbox: the console reads the file and the
 * command takes it as Slack's file share or Telegram's document (labels from the second column);
 * a path that cannot be read gets one line saying what is accepted.
 */
const me: Actor = { platform: "console", userId: "alice" };
const session: ConversationRef = { platform: "console", id: "local" };
const spend = useSpendHarness({ settings: { operators: ["console:alice"] } });

let adapter: ConsoleAdapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

const csvOf = (rows: string[]): string => csvFile("watch.csv", rows);

async function typed(h: SpendHarness, line: string): Promise<string> {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = "";
  output.on("data", (chunk: Buffer) => {
    printed += chunk.toString("utf8");
  });
  adapter = createConsoleAdapter({ input, output, core: h.core, actor: me, conversation: session });
  input.end(`${line}\n`);
  await adapter.finished;
  return printed;
}

describe("console: watch add from a file", () => {
  it("watch add @watch.csv watches every address of the file, with its label", async () => {
    const [a, b, c] = [
      freshAddress("console-watch"),
      freshAddress("console-watch"),
      freshAddress("console-watch"),
    ];
    const h = await spend.setup();
    const printed = await typed(h, `watch add @${csvOf(["address,label", `${a},treasury`, b, c, b])}`);
    expect(printed).toContain("Watching 3 addresses in this conversation (3 new, 0 already watched)");
    expect(h.sandbox.calls("compliance.batch")).toHaveLength(1);
    expect((await h.store.setMembers("watch:all")).sort()).toEqual([a, b, c].sort());
    expect((await readWatch(h.store, session, a))?.label).toBe("treasury");
  });

  it("a path that cannot be read gets one line saying what is accepted; nothing stored", async () => {
    const h = await spend.setup();
    const printed = await typed(h, "watch add @/nonexistent/watch.csv");
    expect(printed.trim()).toBe(
      "the file could not be read (no such file): share a .csv file of one address per row (an optional second column is its label; header optional, UTF-8, at most 10000 addresses and 512 KB)",
    );
    expect(await h.store.setMembers("watch:all")).toEqual([]);
    expect(h.sandbox.calls("compliance.batch")).toEqual([]);
  });
});
