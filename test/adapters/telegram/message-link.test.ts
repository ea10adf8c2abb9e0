import { describe, expect, it } from "vitest";
import { createTelegramAdapter } from "../../../adapters/telegram/index.js";
import { createMemoryLogger } from "../../../src/core/logger.js";
import { publicReply, text } from "../../../src/core/reply.js";
import { createMemoryStore } from "../../../src/store/memory-store.js";

/** The links an escalation puts on the alert's name (src/core/alerts/timers.ts asks the adapter). */
describe("telegram: a link to a message", () => {
  // Never started: a link is built from the chat id, without asking Telegram.
  const adapter = createTelegramAdapter({
    config: { botToken: "123456:link-test", allowedChats: [] },
    core: { handle: async () => publicReply("unused", [text("unused")]), commands: [] },
    store: createMemoryStore(),
    logger: createMemoryLogger(),
  });

  it("is t.me/c/<the chat id without -100>/<message id> in a supergroup or channel", () => {
    expect(adapter.messageLink?.({ platform: "telegram", id: "-1001234567890" }, "42")).toBe(
      "https://t.me/c/1234567890/42",
    );
  });

  it("is none in a private chat or a basic group", () => {
    expect(adapter.messageLink?.({ platform: "telegram", id: "7001" }, "42")).toBeUndefined();
    expect(adapter.messageLink?.({ platform: "telegram", id: "-4242" }, "42")).toBeUndefined();
  });
});
