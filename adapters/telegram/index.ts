export { TELEGRAM_RETRY, type TelegramRetry } from "./bot/client.js";
export {
  createTelegramAdapter,
  type TelegramAdapter,
  type TelegramAdapterOptions,
} from "./telegram-adapter.js";
export { TELEGRAM_WEBHOOK_PATH } from "./webhook.js";
