import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { createConsoleAdapter } from "../../../adapters/console/index.js";
import type { Actor, ConversationRef } from "../../../src/core/invocation.js";
import { type BotKit, startBotKit, waitFor } from "../../support/bot-kit.js";
import { seedCases, seedStandingOrders } from "../../support/long-lists.js";

/** `schedule list [page]` and `cases [all] [page]` typed on the console's stdin. */
const me: Actor = { platform: "console", userId: "alice", displayName: "alice" };
const session: ConversationRef = { platform: "console", id: "local" };

const kits: BotKit[] = [];
const consoles: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(consoles.splice(0).map((c) => c.close()));
  await Promise.all(kits.splice(0).map((k) => k.close()));
});

describe("console: long lists page", () => {
  it("schedule list 3 and cases all 2 show their page and say the count", async () => {
    const kit = await startBotKit({ settings: { operators: ["console:alice"] } });
    kits.push(kit);
    await seedStandingOrders(kit.deps, session, me, 50);
    await seedCases(kit.deps, 60);
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = "";
    output.on("data", (chunk: Buffer) => {
      printed += chunk.toString("utf8");
    });
    const adapter = createConsoleAdapter({ input, output, core: kit.core, actor: me, conversation: session });
    consoles.push(adapter);
    await adapter.start();
    const type = async (line: string, until: RegExp) => {
      const from = printed.length;
      input.write(`${line}\n`);
      await waitFor(() => until.test(printed.slice(from)), line);
      return printed.slice(from);
    };
    const orders = await type("schedule list 3", /Page 3 of 3/);
    expect(orders.match(/^S\d+ · /gm)).toEqual(Array.from({ length: 10 }, (_, i) => `S${41 + i} · `));
    expect(orders).toContain("Page 3 of 3; schedule list 1 for the first.");
    const cases = await type("cases all 2", /Page 2 of 3/);
    expect(cases.match(/• C\d+ /g)).toHaveLength(20);
    expect(cases).toContain("Page 2 of 3; cases all 3 for the next.");
  });
});
