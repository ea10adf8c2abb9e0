/**
 * `npx tsx test/bench/teams-card.ts`: the Teams figure. Teams message → card posted: signed
 * activities `@opsbot energy <new address> 65k` POSTed to /api/messages at RATE_PER_SEC (open
 * loop) to the bot as `startApp` runs it (built-in sandbox, Teams on against the local https fake of
 * the Microsoft side); latency = activity sent → its quote card (Adaptive Card with Confirm)
 * received by the fake Bot Connector, p50/p99. Baseline, same run, same fake, same load: a bare app
 * of the same library (botbuilder's CloudAdapter with the same token check) whose turn posts a
 * canned card. Target: p99 ratio ≤ 1.5×. `--command=compliance` sends `compliance <address>` instead
 * (one deny-list read, a card with fields), to see the adapter's share apart from the quote's reads.
 *
 * The fake is https under a test CA, which Node trusts only when NODE_EXTRA_CA_CERTS is set at
 * start: the script makes the CA, then runs itself again with it set.
 */
import { spawnSync } from "node:child_process";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Activity, TurnContext } from "botbuilder";
import { TeamsConnector } from "../../adapters/teams/connector.js";
import { renderMessage } from "../../adapters/teams/render.js";
import { createTokenCheck } from "../../adapters/teams/verify.js";
import { startApp } from "../../src/app.js";
import { loadConfig } from "../../src/config/load-config.js";
import { buttons, fields, header, publicReply } from "../../src/core/reply.js";
import { createHttpServer, readRawBody, sendJson, sendText } from "../../src/http/server.js";
import { createLogger } from "../../src/log.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { messageActivity } from "../adapters/teams/activities.js";
import { type FakeMicrosoft, startFakeMicrosoft } from "../fakes/teams-microsoft.js";
import setupTls from "../support/tls-global-setup.js";
import { percentile, ratio, round } from "./support/stats.js";

/** `--command=compliance`: a command without the energy quote's service reads (the adapter's own share). */
const COMMAND = process.argv.find((a) => a.startsWith("--command="))?.slice("--command=".length) ?? "energy";
const RATE_PER_SEC = 20;
const WARMUP = 40;
const MEASURED = 400;
const TARGET_RATIO = 1.5;
const ANSWER_WAIT_MS = 30_000;
const TENANT = "5f1e2d3c-0000-4000-8000-00000000a11c";
const APP_ID = "0b0f1e2d-0000-4000-8000-0000000b0701";

if (!process.env.OPSBOT_TEST_TLS_DIR) {
  setupTls();
  const run = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: "inherit",
    env: process.env,
  });
  process.exit(run.status ?? 1);
}

/** Sends `count` activities at RATE_PER_SEC; answers each with the time its card reached the connector. */
async function measure(
  fake: FakeMicrosoft,
  url: string,
  tag: string,
): Promise<{ latencies: number[]; missing: number }> {
  const total = WARMUP + MEASURED;
  const sent = new Map<string, number>();
  const posts: Promise<unknown>[] = [];
  const start = performance.now();
  for (let i = 0; i < total; i += 1) {
    const due = start + (i * 1000) / RATE_PER_SEC;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const address = tronAddress(`teams-${tag}-${i}`);
    const text = COMMAND === "energy" ? `energy ${address} 65k` : `${COMMAND} ${address}`;
    const activity = { ...messageActivity(fake, text), id: `${tag}-${i}` };
    const token = await fake.sign({ serviceUrl: activity.serviceUrl });
    sent.set(address, performance.now());
    posts.push(
      fetch(`${url}/api/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify(activity),
      }).then((r) => r.arrayBuffer()),
    );
  }
  await Promise.allSettled(posts);
  const deadline = Date.now() + ANSWER_WAIT_MS;
  const answered = () =>
    [...sent.keys()].filter((a) => fake.activities.some((x) => JSON.stringify(x.body).includes(a)));
  while (answered().length < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const latencies: number[] = [];
  let missing = 0;
  [...sent.entries()].slice(WARMUP).forEach(([address, at]) => {
    const card = fake.activities.find((x) => JSON.stringify(x.body).includes(address));
    if (card) latencies.push(card.at - at);
    else missing += 1;
  });
  return { latencies, missing };
}

/** The bare app: the same library and token check; its turn posts a canned quote card. */
async function startBare(fake: FakeMicrosoft) {
  const config = {
    appId: APP_ID,
    appPassword: "bench-password-0123456789",
    tenantId: TENANT,
    openIdUrl: fake.openIdUrl,
    loginUrl: fake.loginUrl,
    serviceOrigins: [fake.url],
    publicUrl: "https://opsbot.test",
  };
  const connector = new TeamsConnector(config);
  const check = createTokenCheck({ appId: APP_ID, openIdUrl: fake.openIdUrl, serviceOrigins: [fake.url] });
  const turn = async (context: TurnContext) => {
    const address = /\b(T\w{33})\b/.exec(context.activity.text ?? "")?.[1] ?? "";
    const reply = publicReply("Energy quote", [
      header("Energy quote"),
      fields(["Address", address], ["Energy", "65,000"], ["Price", "3.2 TRX"]),
      buttons({ label: "Confirm 3.2 TRX", token: "t1", style: "primary" }, { label: "Cancel", token: "t2" }),
    ]);
    await context.sendActivity(await renderMessage(reply, async () => ""));
  };
  const http = createHttpServer({
    routes: [
      {
        method: "POST",
        path: "/api/messages",
        async handler(req: IncomingMessage, res: ServerResponse) {
          const activity = JSON.parse((await readRawBody(req)).toString("utf8")) as Activity;
          try {
            const claims = await check(req.headers.authorization, activity.serviceUrl);
            const invoked = await connector.processChecked(claims, activity, turn);
            return invoked ? sendJson(res, invoked.status, invoked.body) : sendText(res, 200, "");
          } catch {
            return sendText(res, 401, "unauthorized");
          }
        },
      },
    ],
  });
  const port = await http.listen(0, "127.0.0.1");
  return { url: `http://127.0.0.1:${port}`, close: () => http.close() };
}

async function main(): Promise<void> {
  const fake = await startFakeMicrosoft();
  const config = loadConfig({
    TEAMS_APP_ID: APP_ID,
    TEAMS_APP_PASSWORD: "bench-password-0123456789",
    TEAMS_TENANT_ID: TENANT,
    TEAMS_OPENID_URL: fake.openIdUrl,
    TEAMS_LOGIN_URL: fake.loginUrl,
    TEAMS_SERVICE_URLS: fake.url,
    PUBLIC_URL: "https://opsbot.test",
    OPS_OPERATORS: "teams:0c0c0c0c-0000-4000-8000-00000000a001",
    LOG_LEVEL: "warn",
  });
  const logger = createLogger({ level: "warn", destination: { write: () => {} } });
  const app = await startApp({ config: { ...config, port: 0 }, logger, host: "127.0.0.1" });
  const bare = await startBare(fake);
  try {
    const base = await measure(fake, bare.url, "bare");
    const bot = await measure(fake, `http://127.0.0.1:${app.port}`, "bot");
    const p = (s: number[], q: number) => round(percentile(s, q));
    const row = {
      figure: "Teams message → card posted (20/s)",
      bot: { p50: p(bot.latencies, 50), p99: p(bot.latencies, 99), missing: bot.missing },
      bare: { p50: p(base.latencies, 50), p99: p(base.latencies, 99), missing: base.missing },
      ratioP99: round(ratio(percentile(bot.latencies, 99), percentile(base.latencies, 99)), 2),
      target: `≤ ${TARGET_RATIO}×`,
    };
    row.target += row.ratioP99 !== null && row.ratioP99 <= TARGET_RATIO ? " met" : " NOT met";
    process.stdout.write(`${JSON.stringify(row, null, 2)}\n`);
  } finally {
    await bare.close();
    await app.stop();
    await fake.close();
  }
}

await main();
