import type { App } from "@slack/bolt";
import type { Actor, Logger, Reply } from "../../src/core/index.js";
import { isSlackApiError } from "./errors.js";
import type { Inflight } from "./inflight.js";
import { renderReply } from "./render/blocks.js";
import type { SlackWeb } from "./web.js";

/**
 * The App Home tab: when a user opens it (`app_home_opened`, tab `home`), the core's home summary
 * (balance, prices, active Host Mode addresses) is rendered and published as their Home view.
 * Buttons on it, if the core ever adds some, arrive as ordinary `block_actions`.
 */
export interface HomeListenerOptions {
  homeReply: (actor: Actor) => Promise<Reply>;
  web: SlackWeb;
  inflight: Inflight;
  logger: Logger;
}

export function registerHome(app: App, options: HomeListenerOptions): void {
  app.event("app_home_opened", async ({ event }) => {
    if (event.tab !== "home") return;
    await options.inflight.run(() => publish(event.user, options));
  });
}

/** Publishes `user`'s Home view; `note` (a button's answer) is shown above it. Never throws. */
export async function publish(
  user: string,
  options: Omit<HomeListenerOptions, "inflight">,
  note?: Reply,
): Promise<void> {
  try {
    const reply = await options.homeReply({ platform: "slack", userId: user });
    const lead = note
      ? renderReply({ ...note, blocks: note.blocks.filter((b) => b.type !== "buttons") }).blocks
      : [];
    await options.web.publishHome(user, [...lead.slice(0, 5), ...renderReply(reply).blocks].slice(0, 100));
  } catch (error) {
    const fields = isSlackApiError(error) ? { method: error.method, code: error.code } : { err: error };
    options.logger.warn({ ...fields, user }, "could not publish the Slack App Home view");
  }
}
