import { createServer } from "node:http";
import { Bot, webhookCallback } from "grammy";
import { FAKE_BOT_TOKEN } from "../../fakes/telegram-api.js";
import { onCleanup } from "../support/cleanup.js";
import { closeServer, listen } from "../support/net.js";
import { BENCH_TELEGRAM_SECRET } from "../support/requests.js";

/**
 * Baseline of figure 1t: a bare grammY bot behind its own `webhookCallback` on a plain node:http
 * server (the secret token checked by grammY), with one command handler that does nothing. No
 * store, no core, no answer.
 */
export async function startBareGrammy(apiRoot: string): Promise<{ origin: string; stop(): Promise<void> }> {
  const bot = new Bot(FAKE_BOT_TOKEN, {
    client: { apiRoot },
    botInfo: {
      id: 1,
      is_bot: true,
      first_name: "bare",
      username: "bare_bench_bot",
      can_join_groups: true,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
      can_connect_to_business: false,
      has_main_web_app: false,
      has_topics_enabled: false,
      allows_users_to_create_topics: false,
      can_manage_bots: false,
      supports_join_request_queries: false,
    },
  });
  bot.command("help", () => {});
  const server = createServer(webhookCallback(bot, "http", { secretToken: BENCH_TELEGRAM_SECRET }));
  const origin = await listen(server);
  const handle = onCleanup("bare grammY bot", () => closeServer(server));
  return { origin, stop: handle.stop };
}
