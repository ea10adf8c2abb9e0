import type { BotCommand, MessageEntity } from "grammy/types";
import type { CommandDefinition } from "../../../src/core/index.js";

/**
 * Telegram's side of the chat grammar: which messages are commands for this bot, and the list
 * `setMyCommands` publishes. Both come from the core's registry, so a verb added to the core
 * appears in Telegram's command menu without touching this adapter.
 */
export type ReadCommand =
  /** A command for this bot: the line for the core, without `/` and `@botname`. */
  | { kind: "command"; text: string }
  /** Not a command (plain text). */
  | { kind: "text" }
  /** A command for another bot, or an unknown `/word` in a group: not ours to answer. */
  | { kind: "ignore" };

export interface CommandMessage {
  text: string;
  entities?: readonly MessageEntity[];
}

/**
 * `/energy@thisbot T… 65k` → `energy T… 65k`. In groups `/cmd@otherbot` is ignored, and so is an
 * unknown `/cmd` without a mention (several bots share a group; it is likely someone else's).
 */
export function readCommand(
  message: CommandMessage,
  botUsername: string,
  privateChat: boolean,
  knownVerbs: ReadonlySet<string>,
): ReadCommand {
  const entity = message.entities?.find((e) => e.type === "bot_command" && e.offset === 0);
  if (entity === undefined) return { kind: "text" };
  const word = message.text.slice(1, entity.length);
  const at = word.indexOf("@");
  const verb = (at === -1 ? word : word.slice(0, at)).toLowerCase();
  const mention = at === -1 ? undefined : word.slice(at + 1);
  if (mention !== undefined && mention.toLowerCase() !== botUsername.toLowerCase()) return { kind: "ignore" };
  if (mention === undefined && !privateChat && !knownVerbs.has(verb)) return { kind: "ignore" };
  return { kind: "command", text: `${verb}${message.text.slice(entity.length)}` };
}

/** Every name the core answers to (verbs and aliases), lower-cased. */
export function knownVerbs(commands: readonly CommandDefinition[]): Set<string> {
  return new Set(commands.flatMap((c) => [c.verb, ...(c.aliases ?? [])].map((v) => v.toLowerCase())));
}

/** Telegram's rules for the command menu. */
const COMMAND_NAME = /^[a-z0-9_]{1,32}$/;
const DESCRIPTION_MAX = 256;
const MAX_COMMANDS = 100;

/** The `setMyCommands` list: each verb with its summary; aliases (`/start`) say what they are. */
export function publishedCommands(commands: readonly CommandDefinition[]): BotCommand[] {
  const list: BotCommand[] = [];
  const seen = new Set<string>();
  const add = (command: string, description: string) => {
    if (!COMMAND_NAME.test(command) || seen.has(command) || list.length >= MAX_COMMANDS) return;
    seen.add(command);
    list.push({ command, description: clip(description) });
  };
  for (const c of commands) add(c.verb, capitalise(c.summary));
  for (const c of commands) {
    for (const alias of c.aliases ?? []) add(alias, `${capitalise(c.summary)} (same as /${c.verb})`);
  }
  return list;
}

const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
const clip = (s: string): string =>
  s.length > DESCRIPTION_MAX ? `${s.slice(0, DESCRIPTION_MAX - 1)}…` : s || "-";
