import { join } from "node:path";
import { FAKE_BOT_TOKEN } from "../../fakes/telegram-api.js";
import { type StartedChild, startedWhenHealthy } from "../support/child-bot.js";
import { spawnNode } from "../support/children.js";
import { freePort } from "../support/net.js";
import { BENCH_TELEGRAM_SECRET } from "../support/requests.js";
import type { World } from "../support/world.js";

/**
 * Baseline of figure 1t: a bare grammY bot behind its own `webhookCallback` on a plain node:http
 * server (the secret token checked by grammY), with one `/help` handler that does nothing, in a
 * child process like the bot. No store, no core, no answer. `GET /healthz` says when it listens.
 */
const BARE_GRAMMY_SCRIPT = [
  'const http = require("node:http");',
  'const { Bot, webhookCallback } = require("grammy");',
  "const botInfo = { id: 1, is_bot: true, first_name: 'bare', username: 'bare_bench_bot', can_join_groups: true,",
  "  can_read_all_group_messages: false, supports_inline_queries: false, can_connect_to_business: false,",
  "  has_main_web_app: false, has_topics_enabled: false, allows_users_to_create_topics: false,",
  "  can_manage_bots: false, supports_join_request_queries: false };",
  "const bot = new Bot(process.env.BOT_TOKEN, { client: { apiRoot: process.env.API_ROOT }, botInfo });",
  'bot.command("help", () => {});',
  'const hook = webhookCallback(bot, "http", { secretToken: process.env.SECRET });',
  "http.createServer((req, res) => {",
  '  if (req.url === "/healthz") { res.writeHead(200); res.end("ok"); return; }',
  "  hook(req, res);",
  '}).listen(Number(process.env.PORT), "127.0.0.1");',
  'process.on("SIGTERM", () => process.exit(0));',
].join("\n");

export async function startBareGrammy(world: World, name: string): Promise<StartedChild> {
  const port = await freePort();
  const child = spawnNode({
    name,
    args: ["-e", BARE_GRAMMY_SCRIPT],
    cwd: world.repo,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      PORT: String(port),
      BOT_TOKEN: FAKE_BOT_TOKEN,
      API_ROOT: world.telegram.url,
      SECRET: BENCH_TELEGRAM_SECRET,
    },
    logFile: join(world.logDir, `${name}.log`),
  });
  return startedWhenHealthy(child, port);
}
