import { afterEach, describe, expect, it } from "vitest";
import { type App, startApp } from "../../../src/app.js";
import { loadConfig } from "../../../src/config/load-config.js";
import { createLogger } from "../../../src/log.js";
import { tronAddress } from "../../../src/sandbox/families/energy/common.js";
import { createFakeTelegramApi, type FakeTelegramApi } from "../../fakes/telegram-api.js";
import { buttonData, callbackUpdate, GROUP_CHAT, messageUpdate, OPERATOR, SECRET } from "./harness.js";

/**
 * The whole bot as `npm start` runs it with Telegram configured: `startApp` with a Config from
 * `loadConfig`, the built-in sandbox, and the fake Bot API as TELEGRAM_API_ROOT.
 */
let app: App | undefined;
let fake: FakeTelegramApi | undefined;
afterEach(async () => {
  await app?.stop();
  await fake?.close();
  app = undefined;
  fake = undefined;
});

async function startBot(): Promise<{ app: App; fake: FakeTelegramApi; url: string; logs: string[] }> {
  fake = await createFakeTelegramApi();
  const logs: string[] = [];
  const config = loadConfig({
    TELEGRAM_BOT_TOKEN: fake.token,
    TELEGRAM_API_ROOT: fake.url,
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    TELEGRAM_ALLOWED_CHATS: `${GROUP_CHAT},42`,
    PUBLIC_URL: "https://opsbot.test",
    OPS_OPERATORS: `telegram:${OPERATOR.id}`,
  });
  // No `secrets`: the adapter itself must keep the token out of the log.
  const logger = createLogger({
    level: "debug",
    destination: { write: (line: string) => void logs.push(line) },
  });
  app = await startApp({ config: { ...config, port: 0 }, logger });
  return { app, fake, url: `http://127.0.0.1:${app.port}`, logs };
}

const post = (url: string, update: unknown, secret: string | null = SECRET) =>
  fetch(`${url}/telegram/webhook`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(secret !== null && { "x-telegram-bot-api-secret-token": secret }),
    },
    body: JSON.stringify(update),
  });

describe("telegram in the app (startApp)", () => {
  it("is ready at start: webhook set to PUBLIC_URL with the secret, commands published, /healthz 200", async () => {
    const { fake, url } = await startBot();
    expect(fake.webhook).toEqual({ url: "https://opsbot.test/telegram/webhook", secretToken: SECRET });
    expect(fake.commands.map((c) => c.command)).toEqual(expect.arrayContaining(["help", "energy", "start"]));
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { parts: Record<string, boolean> }).parts.telegram).toBe(true);
  });

  it("energy: quote → Confirm → one order; the delivery webhook later posts into the same chat", async () => {
    const { app, fake, url, logs } = await startBot();
    const sandbox = app.sandbox;
    if (!sandbox) throw new Error("the demo sandbox did not start");
    const address = tronAddress(`tg-app-${process.pid}`);

    expect((await post(url, messageUpdate("/balance", GROUP_CHAT, OPERATOR), "wrong")).status).toBe(401);
    expect(sandbox.calls("userinfo.get")).toEqual([]);

    expect((await post(url, messageUpdate(`/energy ${address} 65k`, GROUP_CHAT, OPERATOR))).status).toBe(200);
    const quote = await fake.waitFor(() => fake?.messages(GROUP_CHAT).find((m) => m.replyMarkup));
    expect(quote.text).toMatch(/^Energy quote\n/);
    const pressed = callbackUpdate(structuredClone(quote), buttonData(quote, /^Confirm/), OPERATOR);
    expect((await post(url, pressed)).status).toBe(200);

    await fake.waitFor(() => fake?.calls("editMessageText").length === 1, 5_000);
    expect(sandbox.calls("order5m.create")).toHaveLength(1);
    expect(fake.calls("answerCallbackQuery")).toHaveLength(1);
    const delivered = await fake.waitFor(
      () => fake?.messages(GROUP_CHAT).find((m) => /Energy delivered/.test(m.text)),
      10_000,
    );
    expect(delivered.text).toContain(address);
    expect(logs.join("\n")).not.toContain(fake.token.split(":")[1]);
  });
});
