import { describe, expect, it, onTestFinished, vi } from "vitest";
import { TELEGRAM_TEXT_LIMIT } from "../../../adapters/telegram/split.js";
import { CANCEL_KIND, cancelActionHandler, createActionGroup } from "../../../src/core/actions.js";
import type { CommandDefinition } from "../../../src/core/command.js";
import { helpCommand } from "../../../src/core/help.js";
import { buttons, code, header, publicReply, text } from "../../../src/core/reply.js";
import { NOTIFY_QUEUE } from "../../../src/outbox/outbox.js";
import { parseTelegramHtml } from "../../fakes/telegram-html.js";
import { PRIVATE_CHAT, startTelegramHarness, type TelegramHarness } from "./harness.js";

/** A reply of ~13 000 characters: a code block across many lines, text with <, > and &, one button. */
const LINES = Array.from(
  { length: 300 },
  (_, i) => `line ${String(i).padStart(3, "0")} <tag> & "more" text to fill it`,
);
const longCommand: CommandDefinition = {
  verb: "long",
  role: "viewer",
  summary: "a long reply",
  usage: "long",
  example: "long",
  async run(ctx) {
    const { tokens } = await createActionGroup(
      ctx.deps.store,
      { conversation: ctx.invocation.conversation, createdBy: ctx.invocation.actor },
      [{ kind: CANCEL_KIND, payload: {}, role: "viewer" }],
    );
    return publicReply("long", [
      header("Long <report>"),
      text(code(LINES.slice(0, 150).join("\n"))),
      text(LINES.slice(150).join("\n")),
      buttons({ label: "Cancel", token: tokens[0] ?? "" }),
    ]);
  },
};
const registry = { commands: [helpCommand, longCommand], actions: [cancelActionHandler] };

describe("telegram limits: long messages", () => {
  it("splits a reply over 4096 characters at line breaks, valid HTML each, buttons on the last", async () => {
    const h = await startTelegramHarness({ registry });
    await h.say("/long");
    await h.settle();

    const sent = h.fake.calls("sendMessage");
    expect(sent.length).toBeGreaterThanOrEqual(3);
    expect(sent.every((c) => c.status === 200)).toBe(true);
    const messages = h.fake.messages(PRIVATE_CHAT);
    for (const m of messages) {
      expect(m.text.length).toBeLessThanOrEqual(TELEGRAM_TEXT_LIMIT);
      expect(parseTelegramHtml(m.html)).toEqual({ ok: true, text: m.text });
    }
    // Nothing lost, nothing cut inside a line: the chunks joined at their breaks are the reply.
    expect(messages.map((m) => m.text).join("\n")).toBe(["Long <report>", ...LINES].join("\n"));
    // A cut inside the code block closes it and reopens it in the next message.
    const cutInCode = messages.findIndex(
      (m) => m.html.endsWith("</code>") && m.text.endsWith("text to fill it"),
    );
    expect(messages[cutInCode + 1]?.html.startsWith("<code>")).toBe(true);
    expect(messages.map((m) => m.replyMarkup?.inline_keyboard.flat().map((b) => b.text))).toEqual([
      ...messages.slice(1).map(() => undefined),
      ["Cancel"],
    ]);
  });
});

/**
 * The timers started from now on in this test, through the real `setTimeout`: the wait each asked
 * for, and what `seen()` answered when it started and when it ran out.
 */
function watchWaits<T>(seen: () => T): { ms: number; startedAfter: T; endedAfter?: T }[] {
  const waits: { ms: number; startedAfter: T; endedAfter?: T }[] = [];
  const realSetTimeout = globalThis.setTimeout;
  const spy = vi.spyOn(globalThis, "setTimeout").mockImplementation(((
    fire: (...args: unknown[]) => void,
    ms = 0,
    ...args: unknown[]
  ) => {
    const wait: (typeof waits)[number] = { ms, startedAfter: seen() };
    waits.push(wait);
    return realSetTimeout(
      (...given: unknown[]) => {
        wait.endedAfter = seen();
        fire(...given);
      },
      ms,
      ...args,
    );
  }) as typeof setTimeout);
  onTestFinished(() => spy.mockRestore());
  return waits;
}

describe("telegram limits: 429 and outages", () => {
  it("a 429 from the Bot API is retried after retry_after, and the reply is posted once", async () => {
    const queued: string[] = [];
    const h = await startTelegramHarness({
      queues: (queues) => ({
        ...queues,
        add: (queue, name, data, o) => {
          queued.push(queue);
          return queues.add(queue, name, data, o);
        },
      }),
    });
    const sent = () => h.fake.calls("sendMessage").map((c) => c.status);
    const waits = watchWaits(sent);
    h.fake.fail("sendMessage", { kind: "429", retryAfter: 1 });
    await h.say("/help");
    await h.fake.waitFor(() => h.fake.messages(PRIVATE_CHAT).length === 1, 5_000);
    await h.settle();

    expect(sent()).toEqual([429, 200]);
    expect(h.fake.messages(PRIVATE_CHAT)).toHaveLength(1);
    // Retried in process (auto-retry), not through the notify queue, after a wait of the 1 s
    // Telegram asked for: started once the 429 was answered, over before the retry was sent.
    expect(queued).not.toContain(NOTIFY_QUEUE);
    expect(waits.filter((w) => w.ms >= 1_000 && w.endedAfter?.join() === "429")).toEqual([
      { ms: 1_000, startedAfter: [429], endedAfter: [429] },
    ]);
  });

  it("a 429 longer than the in-process bound is not waited for: the reply goes to the notify queue", async () => {
    // What Telegram had answered each time a reply was handed to the notify queue.
    const answeredWhenQueued: number[][] = [];
    const h: TelegramHarness = await startTelegramHarness({
      retry: { maxDelaySeconds: 5 },
      queues: (queues) => ({
        ...queues,
        add: (queue, name, data, o) => {
          if (queue === NOTIFY_QUEUE)
            answeredWhenQueued.push(h.fake.calls("sendMessage").map((c) => c.status));
          return queues.add(queue, name, data, o);
        },
      }),
    });
    h.fake.fail("sendMessage", { kind: "429", retryAfter: 60 });
    await h.say("/help");
    await h.fake.waitFor(() => h.fake.messages(PRIVATE_CHAT).length === 1, 5_000);
    // Queued right after the one refused try, with no retry in process; the queue's send is the 200.
    expect(answeredWhenQueued).toEqual([[429]]);
    expect(h.fake.calls("sendMessage").map((c) => c.status)).toEqual([429, 200]);
    expect(h.logger.records.some((r) => r.msg === "telegram: reply not sent now; queued for retry")).toBe(
      true,
    );
  });

  it("a reply that meets an outage (500) is queued and delivered when Telegram is back", async () => {
    const h = await startTelegramHarness();
    h.fake.fail("sendMessage", { kind: "500" }, 2);
    await h.say("/balance");
    await h.fake.waitFor(() => h.fake.messages(PRIVATE_CHAT).length === 1, 5_000);
    await h.settle();
    expect(h.fake.calls("sendMessage").map((c) => c.status)).toEqual([500, 500, 200]);
    expect(h.fake.messages(PRIVATE_CHAT)[0]?.text).toMatch(/^Account balance\n/);
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(1);
  });

  it("a click's result that cannot be edited in is posted as a new message", async () => {
    const h = await startTelegramHarness({ registry });
    await h.say("/long");
    await h.settle();
    const last = structuredClone(h.fake.messages(PRIVATE_CHAT).at(-1));
    if (!last) throw new Error("no message");
    h.fake.fail("editMessageText", {
      kind: "error",
      code: 400,
      description: "Bad Request: message can't be edited",
    });
    await h.click(last, "Cancel");
    await h.settle();
    expect(h.fake.calls("editMessageText").map((c) => c.status)).toEqual([400]);
    expect(h.fake.messages(PRIVATE_CHAT).at(-1)?.text).toBe("Cancelled by @olga_ops.");
    expect(h.fake.calls("answerCallbackQuery")).toHaveLength(1);
  });
});
