export {
  createTelegramAdapter,
  TELEGRAM_RETRY,
  type TelegramAdapter,
  type TelegramAdapterOptions,
  type TelegramRetry,
} from "./telegram-adapter.js";
export { TELEGRAM_WEBHOOK_PATH } from "./webhook.js";
