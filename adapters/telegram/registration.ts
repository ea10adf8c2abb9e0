import type { PlatformRegistration } from "../../src/platform.js";
import { TELEGRAM_PLATFORM } from "./platform.js";
import { createTelegramAdapter } from "./telegram-adapter.js";

/** Telegram: on with TELEGRAM_BOT_TOKEN; its alert chat is ALERT_TELEGRAM_CHAT. */
export const TELEGRAM_REGISTRATION: PlatformRegistration = {
  facts: TELEGRAM_PLATFORM,
  variables: ["TELEGRAM_BOT_TOKEN", "TELEGRAM_API_ROOT", "TELEGRAM_WEBHOOK_SECRET", "TELEGRAM_ALLOWED_CHATS"],
  on: (config) => config.telegram !== undefined,
  alerts: {
    variable: "ALERT_TELEGRAM_CHAT",
    conversation: ({ alerts }) =>
      alerts.telegramChat === undefined
        ? undefined
        : { platform: TELEGRAM_PLATFORM.platform, id: String(alerts.telegramChat) },
  },
  create: ({ config, core, deps, logger }) => {
    if (!config.telegram) throw new Error("Telegram is not configured");
    return createTelegramAdapter({
      config: config.telegram,
      publicUrl: config.publicUrl,
      core,
      store: deps.store,
      logger,
      notifier: deps.notifier,
    });
  },
};
