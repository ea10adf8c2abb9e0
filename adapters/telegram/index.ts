export type { TelegramRetry } from "./bot/client.js";
export {
  createTelegramAdapter,
  type TelegramAdapter,
} from "./telegram-adapter.js";
