import { afterEach, describe, expect, it } from "vitest";
import { commands } from "../../src/core/command-registry.js";
import { homeSummary } from "../../src/core/home.js";
import { ACTIVE_HOSTS_KEY } from "../../src/core/host/index.js";
import type { Reply } from "../../src/core/reply.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import type { Sandbox } from "../../src/sandbox/server.js";
import { channel, operator } from "../core/support.js";
import { replyText } from "../support/core-harness.js";
import { type Bot, startBot, waitFor } from "../webhooks/bot.js";
import { sandboxFor } from "../webhooks/signed.js";

/**
 * The App Home's Host Mode list follows the Host Mode flow: an address appears once infinity mode
 * started (after Confirm), and leaves it when `host stop` succeeds or when the service calls back
 * `host_paused` (stopped elsewhere). Real core, sandbox over HTTP, callbacks through the route.
 */
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

async function bot(): Promise<Bot> {
  let sandbox: Sandbox | undefined;
  const started = await startBot({
    sandbox: async (origin) => {
      sandbox = await sandboxFor({ energy: { hostFirstCycleMs: 20 } })(origin);
      return sandbox;
    },
    alerts: [channel],
  });
  cleanup.push(async () => {
    await started.close();
    await sandbox?.close();
  });
  return started;
}

const run = (b: Bot, text: string) =>
  b.core.handle({ kind: "command", actor: operator, conversation: channel, text });

async function start(b: Bot, address: string): Promise<Reply> {
  const quote = await run(b, `host start ${address}`);
  const button = quote.blocks.flatMap((block) => (block.type === "buttons" ? block.buttons : []))[0];
  if (!button || !/Start/.test(button.label)) throw new Error(`no Start button: ${replyText(quote)}`);
  return b.core.handle({ kind: "action", actor: operator, conversation: channel, token: button.token });
}

const home = async (b: Bot) => replyText(await homeSummary(b.deps, { actor: operator, commands }));

describe("App Home: addresses in Host Mode", () => {
  it("lists an address once Host Mode started, and no more after host stop", async () => {
    const b = await bot();
    const address = tronAddress("home-host-stop");
    expect(await home(b)).toContain("no address is in Host Mode");

    // A quote alone starts nothing.
    await run(b, `host start ${address}`);
    expect(await b.store.setMembers(ACTIVE_HOSTS_KEY)).toEqual([]);

    const started = await start(b, address);
    expect(replyText(started)).toMatch(/Host Mode/);
    expect(b.sandbox.calls("host.infinitystart")).toHaveLength(1);
    expect(await b.store.setMembers(ACTIVE_HOSTS_KEY)).toEqual([address]);
    expect(await home(b)).toContain("Host Mode (1):");
    expect(await home(b)).toContain(address);

    await run(b, `host stop ${address}`);
    expect(b.sandbox.calls("host.stop")).toHaveLength(1);
    expect(await b.store.setMembers(ACTIVE_HOSTS_KEY)).toEqual([]);
    expect(await home(b)).toContain("no address is in Host Mode");
  });

  it("a failed start lists nothing; a host_paused callback takes the address off the list", async () => {
    const b = await bot();
    const address = tronAddress("home-host-paused");
    b.sandbox.inject(
      "host.infinitystart",
      { kind: "reply", reply: { status: 500, json: { error: "x" } } },
      1,
    );
    await start(b, address);
    expect(await b.store.setMembers(ACTIVE_HOSTS_KEY)).toEqual([]);

    await start(b, address);
    expect(await b.store.setMembers(ACTIVE_HOSTS_KEY)).toEqual([address]);
    // Stopped outside the bot (the service's own stop): it calls back `host_paused`.
    await b.deps.service.hostMode.stop(address);
    await waitFor(
      async () => (await b.store.setMembers(ACTIVE_HOSTS_KEY)).length === 0,
      "the address taken off the list",
    );
    await waitFor(
      () => b.chat.delivered.some((d) => /Host Mode paused/.test(d.reply.summary)),
      "the host_paused notification",
    );
    expect(await home(b)).toContain("no address is in Host Mode");
  });
});
