import type { App } from "@slack/bolt";
import type { AdapterCore, Logger } from "../../src/core/index.js";
import type { Delivery } from "./deliver.js";
import type { Inflight } from "./inflight.js";
import { readSharedFile } from "./shared-file.js";
import type { SlackWeb } from "./web.js";

/**
 * A file shared in a channel with a command as its message (`energy`, `/energy`, `ops energy`):
 * Slack sends it as a `message` event of subtype `file_share`, never as a slash command. The
 * command runs with the first file attached (read with `files.info` and `url_private`); any other
 * file share (a caption that is no command of the bot) is left alone.
 */
export interface FileCommandOptions {
  core: Pick<AdapterCore, "handle" | "commands">;
  web: SlackWeb;
  botToken: string;
  delivery: Delivery;
  inflight: Inflight;
  logger: Logger;
}

interface FileShare {
  subtype?: string;
  user?: string;
  text?: string;
  channel?: string;
  bot_id?: string;
  thread_ts?: string;
  files?: { id?: string }[];
}

/** The command line of a caption, or undefined when its first word is no verb of the bot. */
function captionCommand(text: string, verbs: ReadonlySet<string>): string | undefined {
  const line = text.trim().replace(/^\//, "");
  const [first = "", second = ""] = line.split(/\s+/);
  const verb = first.toLowerCase() === "ops" ? second.toLowerCase() : first.toLowerCase();
  return verbs.has(verb.replace(/^\//, "")) ? line : undefined;
}

export function registerFileCommands(app: App, options: FileCommandOptions): void {
  const verbs = new Set(
    (options.core.commands ?? []).flatMap((c) => [c.verb, ...(c.aliases ?? [])]).map((v) => v.toLowerCase()),
  );
  app.event("message", async ({ event }) => {
    const message = event as FileShare;
    if (message.subtype !== "file_share" || message.bot_id !== undefined) return;
    const line = captionCommand(message.text ?? "", verbs);
    const fileId = message.files?.[0]?.id;
    if (line === undefined || fileId === undefined || !message.user || !message.channel) return;
    const { user, channel } = message;
    await options.inflight.run(async () => {
      try {
        const file = await readSharedFile(options.web, options.botToken, fileId);
        const reply = await options.core.handle({
          kind: "command",
          actor: { platform: "slack", userId: user },
          conversation: { platform: "slack", id: channel },
          text: line,
          file,
        });
        const thread = message.thread_ts === undefined ? {} : { threadTs: message.thread_ts };
        await options.delivery.answer({ channel, user, ...thread }, reply);
      } catch (error) {
        options.logger.error(
          { err: error, channel },
          "could not answer a command shared with a file in Slack",
        );
      }
    });
  });
}
