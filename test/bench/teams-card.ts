/**
 * `npm run bench:teams`: the Teams figure, printed as `npm run bench` prints its figures (fig,
 * measure, value, baseline, ratio, target, met; notes; the figure as JSON on the last line).
 *
 * Teams message → card posted: signed activities `@opsbot energy <new address> 65k` POSTed to
 * /api/messages at RATE_PER_SEC (open loop) to the bot as `startApp` runs it (Teams on against the
 * local https fake of the Microsoft side, a private redis-server as the store and queues, the
 * built-in sandbox); latency = activity sent → its quote card (Adaptive Card with Confirm) received
 * by the fake Bot Connector, p50/p99. The bot is measured settled: its start-up work (the PDF
 * libraries it loads 30 s after start) is done first.
 *
 * Baseline, same run, same fake, same load: a bare app of the same library on the same HTTP server
 * (`createHttpServer`): botbuilder's CloudAdapter (the adapter's `TeamsConnector`: same MSAL client,
 * same Bot Connector client over the same https path) behind the same token check (`verify.ts`:
 * RS256 signature, issuer, audience, expiry, `msteams` endorsement, `serviceurl`), whose turn posts
 * a canned quote card through the same renderer. No store, no tenant check, no command.
 * A third side, the adapter alone (`createTeamsAdapter` with a core answering the canned card), gives
 * the adapter's own share. The sides take turns in ROUNDS rounds, so a busy moment of the
 * machine falls on both alike. Target: p99 ratio ≤ 1.5×. What the bot adds beyond the adapter alone
 * is the energy quote itself (core): a deny-list lookup at the sandbox and about ten Redis round
 * trips one after the other, each a hop to another process, which a busy machine stretches most.
 * `--command=compliance` sends `compliance <address>` instead (one deny-list read, a card with fields).
 *
 * The fake is https under a test CA, which Node trusts only when NODE_EXTRA_CA_CERTS is set at
 * start: the script makes the CA, then runs itself again with it set.
 */
import { spawnSync } from "node:child_process";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Activity, TurnContext } from "botbuilder";
import { TeamsConnector } from "../../adapters/teams/connector.js";
import { renderMessage } from "../../adapters/teams/render.js";
import { createTeamsAdapter } from "../../adapters/teams/teams-adapter.js";
import { createTokenCheck } from "../../adapters/teams/verify.js";
import { startApp } from "../../src/app.js";
import { type Config, loadConfig } from "../../src/config/load-config.js";
import { loadPdfLibraries } from "../../src/core/index.js";
import { buttons, fields, header, publicReply } from "../../src/core/reply.js";
import { createHttpServer, readRawBody, sendJson, sendText } from "../../src/http/server.js";
import { createLogger } from "../../src/log.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import type { Store } from "../../src/store/store.js";
import { messageActivity } from "../adapters/teams/activities.js";
import { type FakeMicrosoft, startFakeMicrosoft } from "../fakes/teams-microsoft.js";
import setupTls from "../support/tls-global-setup.js";
import { installCleanupHooks, onCleanup, runCleanups } from "./support/cleanup.js";
import { startRedisServer } from "./support/redis-server.js";
import { type FigureResult, renderNotes, renderTable } from "./support/report.js";
import { percentile, ratio, round } from "./support/stats.js";

/** `--command=compliance`: a command without the energy quote's service reads (the adapter's own share). */
const COMMAND = process.argv.find((a) => a.startsWith("--command="))?.slice("--command=".length) ?? "energy";
const RATE_PER_SEC = 20;
const WARMUP = 40;
const ROUNDS = 4;
const PER_ROUND = 100;
const TARGET_RATIO = 1.5;
const ANSWER_WAIT_MS = 30_000;
const TENANT = "5f1e2d3c-0000-4000-8000-00000000a11c";
const APP_ID = "0b0f1e2d-0000-4000-8000-0000000b0701";
const ADDRESS = /T[1-9A-HJ-NP-Za-km-z]{33}/g;

if (!process.env.OPSBOT_TEST_TLS_DIR) {
  setupTls();
  const run = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: "inherit",
    env: process.env,
  });
  process.exit(run.status ?? 1);
}

/** When the fake connector first received a card naming each address (read as cards arrive). */
function cardArrivals(fake: FakeMicrosoft) {
  const at = new Map<string, number>();
  let seen = 0;
  return (address: string): number | undefined => {
    for (; seen < fake.activities.length; seen += 1) {
      const card = fake.activities[seen];
      if (!card) continue;
      for (const named of JSON.stringify(card.body).match(ADDRESS) ?? [])
        if (!at.has(named)) at.set(named, card.at);
    }
    return at.get(address);
  };
}

/**
 * Sends `count` activities at RATE_PER_SEC to `url` (tokens signed beforehand, so signing is not on
 * the sending clock) and waits for their cards; answers each activity's latency, or the missing.
 */
async function block(
  fake: FakeMicrosoft,
  arrival: (address: string) => number | undefined,
  url: string,
  tag: string,
  count: number,
): Promise<{ latencies: number[]; missing: number }> {
  const prepared = [];
  for (let i = 0; i < count; i += 1) {
    const address = tronAddress(`teams-${tag}-${i}`);
    const text = COMMAND === "energy" ? `energy ${address} 65k` : `${COMMAND} ${address}`;
    const activity = { ...messageActivity(fake, text), id: `${tag}-${i}` };
    prepared.push({ address, activity, token: await fake.sign({ serviceUrl: activity.serviceUrl }) });
  }
  const sent: { address: string; at: number }[] = [];
  const posts: Promise<unknown>[] = [];
  const start = performance.now();
  for (const [i, { address, activity, token }] of prepared.entries()) {
    const wait = start + (i * 1000) / RATE_PER_SEC - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    sent.push({ address, at: performance.now() });
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
  while (sent.some((s) => arrival(s.address) === undefined) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  const latencies: number[] = [];
  let missing = 0;
  for (const { address, at } of sent) {
    const received = arrival(address);
    if (received === undefined) missing += 1;
    else latencies.push(received - at);
  }
  return { latencies, missing };
}

/** The quote card both the bare app and the adapter-alone side answer, for the address in `text`. */
function cannedQuote(text: string) {
  const address = /\b(T\w{33})\b/.exec(text)?.[1] ?? "";
  return publicReply("Energy quote", [
    header("Energy quote"),
    fields(["Address", address], ["Energy", "65,000"], ["Price", "3.2 TRX"]),
    buttons({ label: "Confirm 3.2 TRX", token: "t1", style: "primary" }, { label: "Cancel", token: "t2" }),
  ]);
}

/**
 * The Teams adapter alone: `createTeamsAdapter` as the bot wires it (same config, the bot's Redis
 * store) on its own HTTP server, whose core answers the canned quote at once: the adapter's share.
 */
async function startAdapterAlone(config: NonNullable<Config["teams"]>, store: Store) {
  const adapter = createTeamsAdapter({
    config,
    core: { handle: async (invocation) => cannedQuote(invocation.kind === "command" ? invocation.text : "") },
    store,
    logger: createLogger({ level: "warn", destination: { write: () => {} } }),
  });
  const http = createHttpServer({ routes: [...adapter.routes] });
  const port = await http.listen(0, "127.0.0.1");
  await adapter.start();
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await adapter.close();
      await http.close();
    },
  };
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
    await context.sendActivity(await renderMessage(cannedQuote(context.activity.text ?? ""), async () => ""));
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

async function main(): Promise<FigureResult> {
  const redis = await startRedisServer();
  const fake = await startFakeMicrosoft();
  onCleanup("fake Microsoft", () => fake.close());
  const config = loadConfig({
    REDIS_URL: redis.url,
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
  const app = await startApp({
    config: { ...config, port: 0 },
    logger,
    host: "127.0.0.1",
    redisPrefix: "bench:teams:",
  });
  onCleanup("bot", () => app.stop());
  const bare = await startBare(fake);
  onCleanup("bare app", () => bare.close());
  if (!config.teams) throw new Error("Teams is not configured");
  const alone = await startAdapterAlone(config.teams, app.deps.store);
  onCleanup("adapter alone", () => alone.close());
  await loadPdfLibraries();

  const botUrl = `http://127.0.0.1:${app.port}`;
  const arrival = cardArrivals(fake);
  const side = (url: string) => ({ url, latencies: [] as number[], missing: 0 });
  const sides = { bare: side(bare.url), bot: side(botUrl), adapter: side(alone.url) };
  await block(fake, arrival, bare.url, "bare-warm", WARMUP);
  await block(fake, arrival, botUrl, "bot-warm", WARMUP);
  await block(fake, arrival, alone.url, "adapter-warm", WARMUP);
  for (let round = 0; round < ROUNDS; round += 1) {
    const order =
      round % 2 === 0 ? (["bare", "bot", "adapter"] as const) : (["adapter", "bot", "bare"] as const);
    for (const side of order) {
      const measured = await block(fake, arrival, sides[side].url, `${side}-${round}`, PER_ROUND);
      sides[side].latencies.push(...measured.latencies);
      sides[side].missing += measured.missing;
    }
  }
  const q = (side: keyof typeof sides, p: number) => round(percentile(sides[side].latencies, p));
  const p99Ratio = ratio(percentile(sides.bot.latencies, 99), percentile(sides.bare.latencies, 99));
  const adapterRatio = ratio(percentile(sides.adapter.latencies, 99), percentile(sides.bare.latencies, 99));
  const baselineName = "bare CloudAdapter, canned card";
  return {
    id: "T",
    title: `Teams message → card posted (${RATE_PER_SEC}/s)`,
    measures: [
      {
        name: `Teams ${COMMAND} → card posted p99`,
        value: q("bot", 99),
        unit: "ms",
        baseline: { name: baselineName, value: q("bare", 99) },
        ratio: p99Ratio,
        targets: [
          {
            text: `p99 ≤ ${TARGET_RATIO}× baseline`,
            met: p99Ratio === null ? null : p99Ratio <= TARGET_RATIO,
          },
        ],
      },
      {
        name: "Teams adapter alone (canned answer) p99",
        value: q("adapter", 99),
        unit: "ms",
        baseline: { name: baselineName, value: q("bare", 99) },
        ratio: adapterRatio,
        targets: [
          {
            text: `p99 ≤ ${TARGET_RATIO}× baseline`,
            met: adapterRatio === null ? null : adapterRatio <= TARGET_RATIO,
          },
        ],
      },
      {
        name: `Teams ${COMMAND} → card posted p50`,
        value: q("bot", 50),
        unit: "ms",
        baseline: { name: baselineName, value: q("bare", 50) },
        ratio: ratio(percentile(sides.bot.latencies, 50), percentile(sides.bare.latencies, 50)),
        targets: [],
      },
    ],
    notes: [
      `${ROUNDS * PER_ROUND} activities each side at ${RATE_PER_SEC}/s (open loop) after ${WARMUP} warm-up each; the sides take turns in ${ROUNDS} rounds of ${PER_ROUND} (bare, bot, adapter, then adapter, bot, bare, …)`,
      "adapter alone: createTeamsAdapter as wired in the bot (the bot's Redis store, tenant check, place kept, command read, render, post) whose core answers the canned quote card at once: the adapter's share without the quote's own reads",
      "bot: startApp with Teams on, a private redis-server, the built-in sandbox, settled (its PDF libraries loaded); latency = activity POSTed → its card received by the fake Bot Connector (https)",
      "baseline: the same library (botbuilder CloudAdapter via TeamsConnector, same MSAL client, same Bot Connector client and https path), the same token check (verify.ts) and HTTP server; its turn posts a canned quote card through the same renderer",
      `cards missing: bot ${sides.bot.missing}, adapter alone ${sides.adapter.missing}, bare ${sides.bare.missing}; p50 adapter alone ${q("adapter", 50)} ms; tokens requested from the login endpoint by the three apps: ${fake.tokenRequests} (one each when kept)`,
    ],
    details: {
      samples: {
        bot: sides.bot.latencies.length,
        adapter: sides.adapter.latencies.length,
        bare: sides.bare.latencies.length,
      },
      command: COMMAND,
    },
  };
}

installCleanupHooks();
try {
  const figure = await main();
  process.stdout.write(
    `${renderTable([figure])}\n\nNotes:\n${renderNotes([figure])}\n\n${JSON.stringify(figure)}\n`,
  );
} finally {
  await runCleanups();
}
