/**
 * Telegram updates as the Bot API sends them to a bot (a text message, a button click), and the
 * users and chats of the tests: for the Telegram harness and for the whole app (app-world.ts).
 */
import type { FakeMessage } from "../../fakes/telegram-api.js";

export const OPERATOR = { id: 7001, is_bot: false, first_name: "Olga", username: "olga_ops" };
export const VIEWER = { id: 7002, is_bot: false, first_name: "Vic", last_name: "<Viewer> & Co" };
/** A private chat's id is its user's id. */
export const PRIVATE_CHAT = OPERATOR.id;
export const GROUP_CHAT = -1001234567890;
export const STRANGER_CHAT = -1009999999999;

export type TelegramUser = typeof OPERATOR | typeof VIEWER;

let updateSeq = 1;
const nextUpdateId = (): number => 100_000 + updateSeq++ + Math.floor(Math.random() * 1_000) * 1_000;

export function messageUpdate(text: string, chatId: number, from: TelegramUser, updateId = nextUpdateId()) {
  const command = /^\/\S+/.exec(text)?.[0];
  return {
    update_id: updateId,
    message: {
      message_id: updateId,
      date: Math.floor(Date.now() / 1000),
      chat: chatOf(chatId, from),
      from,
      text,
      ...(command && { entities: [{ type: "bot_command", offset: 0, length: command.length }] }),
    },
  };
}

/** A message that answers `asked` (a message of the bot `bot`), as Telegram sends a reply to a ForceReply prompt. */
export function replyUpdate(
  asked: FakeMessage,
  text: string,
  from: TelegramUser,
  bot: { id: number; username?: string },
) {
  const update = messageUpdate(text, Number(asked.chatId), from);
  return {
    update_id: update.update_id,
    message: {
      ...update.message,
      reply_to_message: {
        message_id: asked.message_id,
        date: Math.floor(Date.now() / 1000),
        chat: update.message.chat,
        from: { id: bot.id, is_bot: true, first_name: "Ops", username: bot.username },
        text: asked.text,
      },
    },
  };
}

export function callbackUpdate(
  message: FakeMessage,
  data: string,
  from: TelegramUser,
  updateId = nextUpdateId(),
) {
  return {
    update_id: updateId,
    callback_query: {
      id: `cq-${updateId}`,
      from,
      chat_instance: "ci-1",
      data,
      message: {
        message_id: message.message_id,
        date: Math.floor(Date.now() / 1000),
        chat: chatOf(Number(message.chatId), from),
        from: { id: 123456, is_bot: true, first_name: "Ops", username: "opsbot_test_bot" },
        text: message.text,
      },
    },
  };
}

function chatOf(chatId: number, from: TelegramUser) {
  return chatId < 0
    ? { id: chatId, type: "supergroup", title: "Ops room" }
    : { id: chatId, type: "private", first_name: from.first_name };
}

/** The callback_data of the button labelled `label`; fails loudly when the message has none. */
export function buttonData(message: FakeMessage, label: string | RegExp): string {
  const buttons = message.replyMarkup?.inline_keyboard.flat() ?? [];
  const found = buttons.find((b) => (typeof label === "string" ? b.text === label : label.test(b.text)));
  if (!found?.callback_data) {
    throw new Error(`no button ${String(label)} on message: ${buttons.map((b) => b.text).join(", ")}`);
  }
  return found.callback_data;
}

/** A document sent with a caption (`/energy` + a CSV), as Telegram sends it. */
export function documentUpdate(
  caption: string,
  document: {
    file_id: string;
    file_unique_id: string;
    file_size?: number;
    file_name: string;
    mime_type?: string;
  },
  chatId: number,
  from: TelegramUser,
  updateId = nextUpdateId(),
) {
  const command = /^\/\S+/.exec(caption)?.[0];
  return {
    update_id: updateId,
    message: {
      message_id: updateId,
      date: Math.floor(Date.now() / 1000),
      chat: chatOf(chatId, from),
      from,
      document,
      caption,
      ...(command && { caption_entities: [{ type: "bot_command", offset: 0, length: command.length }] }),
    },
  };
}
