import { describe, expect, it } from "vitest";
import { publishedCommands } from "../../../adapters/telegram/bot/commands.js";
import { commands } from "../../../src/core/command-registry.js";
import { createMemoryStore } from "../../../src/store/memory-store.js";
import { createRedisStore } from "../../../src/store/redis-store.js";
import type { Store } from "../../../src/store/store.js";
import { createFakeTelegramApi } from "../../fakes/telegram-api.js";
import { testRedis } from "../../support/redis.js";
import { messageUpdate, OPERATOR, PRIVATE_CHAT, SECRET, startTelegramHarness } from "./harness.js";

describe("telegram webhook: start", () => {
  it("reads getMe, publishes the registry with setMyCommands, then sets the webhook with the secret", async () => {
    const h = await startTelegramHarness();
    expect(h.fake.calls().map((c) => c.method)).toEqual(["getMe", "setMyCommands", "setWebhook"]);
    expect(h.fake.commands).toEqual(publishedCommands(commands));
    const names = h.fake.commands.map((c) => c.command);
    for (const c of commands) expect(names).toContain(c.verb);
    expect(names).toContain("start");
    const help = h.fake.commands.find((c) => c.command === "help");
    expect(help?.description).toMatch(/^What I can do/);
    expect(h.fake.webhook).toEqual({ url: "https://opsbot.test/telegram/webhook", secretToken: SECRET });
    expect(h.fake.calls("setWebhook")[0]?.params.allowed_updates).toEqual(["message", "callback_query"]);
    expect(h.adapter.ready()).toBe(true);
  });
});

describe("telegram webhook: the secret header", () => {
  it.each([
    ["a wrong secret", "hook-secret_0123456788"],
    ["a shorter secret", "hook"],
    ["no secret header", null],
  ])("%s gets 401 and has no effect", async (_name, given) => {
    const h = await startTelegramHarness();
    const update = messageUpdate("/balance", PRIVATE_CHAT, OPERATOR);
    const refused = await h.postUpdate(update, given);
    expect(refused.status).toBe(401);
    await h.settle();
    expect(h.fake.calls("sendMessage")).toEqual([]);
    expect(h.sandbox.calls()).toEqual([]);
    expect(
      h.logger.records.some((r) => r.level === "warn" && /wrong or missing secret/.test(r.msg ?? "")),
    ).toBe(true);

    // The refused request claimed nothing: the same update with the right secret is served.
    expect((await h.postUpdate(update)).status).toBe(200);
    await h.settle();
    expect(h.fake.calls("sendMessage")).toHaveLength(1);
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(1);
  });

  it("answers 400 to a body that is not an update, without handling anything", async () => {
    const h = await startTelegramHarness();
    const res = await fetch(`${h.url}/telegram/webhook`, {
      method: "POST",
      headers: { "x-telegram-bot-api-secret-token": SECRET, "content-type": "application/json" },
      body: "{not json",
    });
    expect(res.status).toBe(400);
    expect((await h.postUpdate({ message: { text: "/help" } })).status).toBe(400);
    await h.settle();
    expect(h.fake.calls("sendMessage")).toEqual([]);
  });
});

describe("telegram webhook: quick acknowledgement and re-sent updates", () => {
  it("answers 200 before the service has answered; the reply follows", async () => {
    const h = await startTelegramHarness();
    let answer!: () => void;
    const held = new Promise<void>((resolve) => {
      answer = resolve;
    });
    h.sandbox.inject("userinfo.get", { kind: "hold", until: held });
    let status: number | undefined;
    void h.say("/balance").then((res) => {
      status = res.status;
    });
    // Answered while the service is asked and has not answered (held until the test lets it).
    await h.fake.waitFor(() => status !== undefined && h.sandbox.calls("userinfo.get").length === 1);
    expect(status).toBe(200);
    expect(h.sandbox.calls("userinfo.get")[0]?.status).toBe(0);
    expect(h.fake.calls("sendMessage")).toEqual([]);

    answer();
    await h.fake.waitFor(() => h.fake.messages(PRIVATE_CHAT).length === 1);
    expect(h.fake.messages(PRIVATE_CHAT)[0]?.text).toMatch(/Balance/);
    expect(h.sandbox.calls("userinfo.get")[0]?.status).toBe(200);
  });

  it("answers 200 while the update's claim is still being stored, and runs it once the claim is taken", async () => {
    const memory = createMemoryStore();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const store: Store = {
      ...memory,
      close: () => memory.close(),
      setIfNotExists: async (key, value, ttlMs) => {
        if (key.startsWith("telegram:update:")) await held;
        return memory.setIfNotExists(key, value, ttlMs);
      },
    };
    const h = await startTelegramHarness({ store });
    const update = messageUpdate("/balance", PRIVATE_CHAT, OPERATOR);
    expect((await h.postUpdate(update)).status).toBe(200);
    expect(h.sandbox.calls()).toEqual([]);
    expect((await h.postUpdate(update)).status).toBe(200);
    release();
    await h.settle();
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(1);
    expect(h.fake.calls("sendMessage")).toHaveLength(1);
  });

  it("runs a re-sent update (same update_id) once", async () => {
    const h = await startTelegramHarness();
    const update = messageUpdate("/balance", PRIVATE_CHAT, OPERATOR);
    const answers = await Promise.all([h.postUpdate(update), h.postUpdate(update)]);
    expect((await h.postUpdate(update)).status).toBe(200);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    await h.settle();
    expect(h.fake.calls("sendMessage")).toHaveLength(1);
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(1);
  });

  it("runs an update once across two instances sharing one Redis store", async () => {
    const redis = testRedis();
    try {
      const fake = await createFakeTelegramApi();
      const one = await startTelegramHarness({
        fake,
        store: createRedisStore({ redis: redis.connect(), prefix: redis.prefix }),
      });
      const two = await startTelegramHarness({
        fake,
        store: createRedisStore({ redis: redis.connect(), prefix: redis.prefix }),
      });
      const update = messageUpdate("/balance", PRIVATE_CHAT, OPERATOR);
      const answers = await Promise.all([one.postUpdate(update), two.postUpdate(update)]);
      expect(answers.map((r) => r.status)).toEqual([200, 200]);
      await Promise.all([one.settle(), two.settle()]);
      expect(fake.calls("sendMessage")).toHaveLength(1);
      expect(one.sandbox.calls("userinfo.get").length + two.sandbox.calls("userinfo.get").length).toBe(1);
      await one.close();
      await two.close();
      await fake.close();
    } finally {
      await redis.cleanup();
    }
  });
});
