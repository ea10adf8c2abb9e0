import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { createConsoleAdapter } from "../../../adapters/console/index.js";
import type { CoreSettings } from "../../../src/core/deps.js";
import type { Actor, ConversationRef } from "../../../src/core/invocation.js";
import { type BotKit, FAST_ENERGY, startBotKit, startTestSandbox } from "../../support/bot-kit.js";
import { freshAddress } from "../../support/spend-harness.js";

/**
 * `host status` and `subuser delete` on the console: the console adapter on a pipe in front of the
 * real core, client and sandbox; buttons are numbered choices.
 */
const me: Actor = { platform: "console", userId: "alice" };
const session: ConversationRef = { platform: "console", id: "local" };

const kits: BotKit[] = [];
afterEach(async () => {
  await Promise.all(kits.splice(0).map((k) => k.close()));
});

async function consoleBot(settings: Partial<CoreSettings> = {}) {
  const kit = await startBotKit({
    sandbox: await startTestSandbox({ energy: FAST_ENERGY }),
    settings: {
      hostCallbackToken: "console-test-callback-token",
      admins: ["console:alice"],
      operators: [],
      explorerTxUrl: "https://tronscan.org/#/transaction/",
      ...settings,
    },
  });
  kits.push(kit);
  /** Types the lines, ends the input and returns everything printed once they are all answered. */
  async function type(...lines: string[]): Promise<string> {
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = "";
    output.on("data", (chunk: Buffer) => {
      printed += chunk.toString("utf8");
    });
    const adapter = createConsoleAdapter({ input, output, core: kit.core, actor: me, conversation: session });
    await kit.startWorkers(new Map([["console", adapter]]));
    await adapter.start();
    input.end(lines.map((l) => `${l}\n`).join(""));
    await adapter.finished;
    await adapter.close();
    return printed;
  }
  return { kit, sandbox: kit.sandbox, type };
}

describe("console: host status", () => {
  it("the start offers [1] Status, confirmed by Time Status; pressing it prints the status; unknown: one line", async () => {
    const { sandbox, type } = await consoleBot({ operators: [] });
    const address = freshAddress("console-status");
    const unknown = freshAddress("console-status-unknown");
    const out = await type(`host start ${address}`, "1", "1", `host status ${unknown}`);
    expect(out).toMatch(/Host Mode started\n=+\n[\s\S]*Confirmed by Time Status: active, infinity/);
    expect(out).toContain("[1] Status");
    expect(out).toMatch(
      /Host Mode status\n=+\nAddress: T\w+\nStatus: active\nMode: infinity\nCycles ordered: unlimited/,
    );
    expect(out).toContain("Started by: console:alice");
    expect(out).toContain(
      `${unknown} is not registered for Host Mode with this account, so the service has no status for it (code -4). Start it with: host start ${unknown}`,
    );
    expect(sandbox.calls("host.status")).toHaveLength(3);
  });
});

describe("console: subuser delete", () => {
  it("a console user who is not an admin is refused, and nothing is called", async () => {
    const { sandbox, type } = await consoleBot({ admins: [], operators: ["console:alice"] });
    const out = await type("subuser delete 12");
    expect(out).toContain("subuser needs the admin role; you are an operator.");
    expect(sandbox.calls()).toEqual([]);
  });

  it("a bad user_id is refused before any call; the button pressed twice sends one DELETE", async () => {
    const { sandbox, type } = await consoleBot();
    const sub = sandbox.reports.addSubuser(sandbox.account);
    const out = await type("subuser delete abc", `subuser delete ${sub.userId}`, "1", "1");
    expect(out).toContain('"abc" is not a user_id: it must be a positive whole number');
    expect(out).toContain("[1] Delete sub-user  [2] Cancel");
    expect(out).toContain(`Sub-user ${sub.googleId} deleted`);
    expect(out).toContain("Already handled.");
    expect(sandbox.calls().map((c) => [c.endpoint, c.status])).toEqual([["subuser.delete", 200]]);
  });

  it("an unknown user: one line", async () => {
    const { sandbox, type } = await consoleBot();
    const out = await type("subuser delete 424242", "1");
    expect(out).toContain(
      "Not deleted: the service says user 424242 does not exist or is not a sub-user (400: User not found)",
    );
    expect(sandbox.calls("subuser.delete").map((c) => c.status)).toEqual([400]);
  });

  it("with OPS_APPROVAL_TRX the console (one person) cannot get a second admin: refused, nothing deleted", async () => {
    const { sandbox, type } = await consoleBot({ approvalTrx: "1" });
    const sub = sandbox.reports.addSubuser(sandbox.account);
    const out = await type(`subuser delete ${sub.userId}`, "1");
    expect(out).toContain("Not deleted: two-person approval is on (OPS_APPROVAL_TRX)");
    expect(sandbox.calls()).toEqual([]);
    expect(sandbox.accounts.byUserId(sub.userId)).toBe(sub);
  });
});
