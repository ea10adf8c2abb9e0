import { join } from "node:path";
import { startBareBolt } from "../baselines/bare-bolt.js";
import { startBareGrammy } from "../baselines/bare-grammy.js";
import { type StartedChild, startChildBot } from "../support/child-bot.js";
import { rateLatencies, runLoad } from "../support/load.js";
import type { RequestSpec } from "../support/load-types.js";
import type { FigureResult } from "../support/report.js";
import { BENCH_TELEGRAM_SECRET, slashCommand } from "../support/requests.js";
import { percentile, ratio, round } from "../support/stats.js";
import { BENCH_TELEGRAM_CHAT, problemNote, startBot, type World } from "../support/world.js";

/**
 * Figure 1: signed slash commands (`/ops help`: no service call) POSTed to /slack/events at 50/s,
 * open loop, 4 keep-alive connections; latency = request sent → HTTP answer (the ack) received.
 * Baseline: a bare Bolt no-op command under the same load. The bot's answers still go to the
 * fake Slack API's response_url after the ack, competing with the next commands, as in production.
 * Figure 1t: the same for Telegram: `/help` updates POSTed to /telegram/webhook with the secret
 * token; latency = update sent → the webhook's answer. The built bot (`npm start`'s program) in a
 * child process. Baseline: a bare grammY bot behind its own `webhookCallback` with a no-op `/help`
 * handler, in a child process too. The bot's answers go to the fake Bot API's sendMessage after
 * the webhook's answer.
 */
const RATE_PER_SEC = 50;
const WARMUP = 50;
const MEASURED = 500;
const ROUNDS = 3;
const CONNECTIONS = 4;
const CHANNEL = "C0BENCHACK";
const USER = "U0BENCH";
const TARGET_P99_MS = 50;
const TARGET_RATIO = 1.5;

/** Latencies (ms) of the measured requests of one run, and how many were not answered 2xx. */
async function measure(origin: string, request: (i: number) => RequestSpec) {
  const requests = Array.from({ length: WARMUP + MEASURED }, (_, i) => request(i));
  const result = await runLoad({
    mode: "rate",
    origin,
    connections: CONNECTIONS,
    ratePerSec: RATE_PER_SEC,
    count: requests.length,
    source: { kind: "list", requests },
  });
  const measured = {
    ...result,
    sentAt: result.sentAt.slice(WARMUP),
    doneAt: result.doneAt.slice(WARMUP),
    status: result.status.slice(WARMUP),
  };
  return { ...rateLatencies(measured), errors: result.errors };
}

interface Side {
  latencies: number[];
  non2xx: number;
  errors: string[];
}

const add = (side: Side, run: Side) => {
  side.latencies.push(...run.latencies);
  side.non2xx += run.non2xx;
  side.errors.push(...run.errors);
};

const summarize = (side: Side) => ({
  p50: round(percentile(side.latencies, 50), 2),
  p99: round(percentile(side.latencies, 99), 2),
  max: round(percentile(side.latencies, 100), 2),
  samples: side.latencies.length,
  non2xx: side.non2xx,
  errors: side.errors.slice(0, 5),
});

interface AckPlan {
  id: string;
  title: string;
  /** What is sent, e.g. "signed `/ops help` commands". */
  what: string;
  baselineName: string;
  bare: () => Promise<{ origin: string; stop(): Promise<void> }>;
  bot: () => Promise<{ origin: string; logFile: string; stop(): Promise<void> }>;
  request: (side: "bare" | "bot", i: number) => RequestSpec;
  /** How many answers the bot has posted so far (a check that the commands really ran). */
  answers: () => number;
}

async function ackFigure(plan: AckPlan): Promise<FigureResult> {
  const bareSide: Side = { latencies: [], non2xx: 0, errors: [] };
  const botSide: Side = { latencies: [], non2xx: 0, errors: [] };
  const answersBefore = plan.answers();
  const bare = await plan.bare();
  const bot = await plan.bot();
  // Interleaved rounds, samples pooled: neither side always runs first on a warming machine.
  for (let round = 0; round < ROUNDS; round += 1) {
    add(bareSide, await measure(bare.origin, (i) => plan.request("bare", i)));
    add(botSide, await measure(bot.origin, (i) => plan.request("bot", i)));
  }
  await bare.stop();
  const expected = ROUNDS * (WARMUP + MEASURED);
  const deadline = Date.now() + 10_000;
  const answered = () => plan.answers() - answersBefore;
  while (answered() < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await bot.stop();
  const app = summarize(botSide);
  const base = summarize(bareSide);

  const p99Ratio = ratio(app.p99, base.p99);
  const notes = [
    `${ROUNDS} interleaved rounds per side (${plan.baselineName}, bot, ${plan.baselineName}, bot), each ${MEASURED} ${plan.what} at ${RATE_PER_SEC}/s after ${WARMUP} warm-up ones, open loop, ${CONNECTIONS} keep-alive connections, from a worker thread; percentiles over the ${app.samples} pooled samples`,
    `bot: ${app.non2xx} non-2xx, max ${app.max} ms, ${answered()} of ${expected} answers reached the fake API; ${plan.baselineName}: ${base.non2xx} non-2xx, max ${base.max} ms`,
  ];
  const problems = problemNote("the bot", bot.logFile);
  if (problems) notes.push(problems);
  if (app.errors.length + base.errors.length > 0)
    notes.push(`errors: ${[...app.errors, ...base.errors].join("; ")}`);
  return {
    id: plan.id,
    title: plan.title,
    measures: [
      {
        name: "ack latency p50",
        value: app.p50,
        unit: "ms",
        baseline: { name: plan.baselineName, value: base.p50 },
        ratio: ratio(app.p50, base.p50),
        targets: [],
      },
      {
        name: "ack latency p99",
        value: app.p99,
        unit: "ms",
        baseline: { name: plan.baselineName, value: base.p99 },
        ratio: p99Ratio,
        targets: [
          {
            text: `≤ ${TARGET_P99_MS} ms`,
            met: app.p99 === null ? null : app.p99 <= TARGET_P99_MS && app.non2xx === 0,
          },
          {
            text: `≤ ${TARGET_RATIO}× the bare p99`,
            met: p99Ratio === null ? null : p99Ratio <= TARGET_RATIO,
          },
        ],
      },
    ],
    notes,
    details: {
      bot: app,
      bare: base,
      ratePerSec: RATE_PER_SEC,
      rounds: ROUNDS,
      measured: MEASURED,
      warmup: WARMUP,
    },
  };
}

export function slashAckFigure(world: World, serviceUrl: string): Promise<FigureResult> {
  return ackFigure({
    id: "1",
    title: "slash command → HTTP ack, 50 commands/s",
    what: "signed `/ops help` commands",
    baselineName: "bare Bolt no-op",
    bare: () => startBareBolt(world.slack.apiUrl),
    bot: () => startBot(world, "fig1-slash", serviceUrl),
    request: () =>
      slashCommand("/ops help", {
        channel: CHANNEL,
        user: USER,
        responseUrl: world.slack.responseUrl({ channel: CHANNEL, user: USER }),
      }),
    answers: () => world.slack.calls("response_url").length,
  });
}

const telegramUser = { id: Number(BENCH_TELEGRAM_CHAT), is_bot: false, first_name: "Bench" };
let updateId = 1_000_000;

/** A `/help` message update as the Bot API POSTs it to a webhook, with the secret token. */
function helpUpdate(path: string): RequestSpec {
  updateId += 1;
  const update = {
    update_id: updateId,
    message: {
      message_id: updateId,
      date: Math.floor(Date.now() / 1000),
      chat: { id: telegramUser.id, type: "private", first_name: telegramUser.first_name },
      from: telegramUser,
      text: "/help",
      entities: [{ type: "bot_command", offset: 0, length: 5 }],
    },
  };
  return {
    method: "POST",
    path,
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": BENCH_TELEGRAM_SECRET },
    body: JSON.stringify(update),
  };
}

/** A child process as an ack figure's side: its origin, its log, and stopping it. */
async function childSide(started: Promise<StartedChild>, logFile: string) {
  const { child, origin } = await started;
  return {
    origin,
    logFile,
    stop: async () => {
      await child.stop();
    },
  };
}

export function telegramAckFigure(world: World, serviceUrl: string): Promise<FigureResult> {
  const botName = "fig1t-telegram";
  return ackFigure({
    id: "1t",
    title: "Telegram update → webhook answer, 50 updates/s",
    what: "`/help` updates with the secret token",
    baselineName: "bare grammY webhookCallback no-op",
    // Both in child processes: the in-process fakes' work (the bot's answers) must not delay the
    // bot's own webhook answers, which it would in one event loop with them.
    bare: () => childSide(startBareGrammy(world, "fig1t-bare"), join(world.logDir, "fig1t-bare.log")),
    bot: () =>
      childSide(
        startChildBot(world, { name: botName, redisUrl: world.redis.db(5), serviceUrl }),
        join(world.logDir, `${botName}.log`),
      ),
    request: () => helpUpdate("/telegram/webhook"),
    answers: () => world.telegram.calls("sendMessage").length,
  });
}
