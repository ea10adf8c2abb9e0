import { startBareBolt } from "../baselines/bare-bolt.js";
import { rateLatencies, runLoad } from "../support/load.js";
import type { RequestSpec } from "../support/load-types.js";
import type { FigureResult } from "../support/report.js";
import { slashCommand } from "../support/requests.js";
import { percentile, ratio, round } from "../support/stats.js";
import { problemNote, startBot, type World } from "../support/world.js";

/**
 * Figure 1: signed slash commands (`/ops help`: no service call) POSTed to /slack/events at 50/s,
 * open loop, 4 keep-alive connections; latency = request sent → HTTP answer (the ack) received.
 * Baseline: a bare Bolt no-op command under the same load. The bot's answers still go to the
 * fake Slack API's response_url after the ack, competing with the next commands, as in production.
 */
const RATE_PER_SEC = 50;
const WARMUP = 50;
const MEASURED = 500;
const ROUNDS = 2;
const CONNECTIONS = 4;
const COMMAND = "/ops help";
const CHANNEL = "C0BENCHACK";
const USER = "U0BENCH";
const TARGET_P99_MS = 50;
const TARGET_RATIO = 1.5;

/** Latencies (ms) of the measured commands of one run, and how many were not answered 2xx. */
async function measure(world: World, origin: string) {
  const requests: RequestSpec[] = Array.from({ length: WARMUP + MEASURED }, () =>
    slashCommand(COMMAND, {
      channel: CHANNEL,
      user: USER,
      responseUrl: world.slack.responseUrl({ channel: CHANNEL, user: USER }),
    }),
  );
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

export async function slashAckFigure(world: World, serviceUrl: string): Promise<FigureResult> {
  const bareSide: Side = { latencies: [], non2xx: 0, errors: [] };
  const botSide: Side = { latencies: [], non2xx: 0, errors: [] };
  const answersBefore = world.slack.calls("response_url").length;
  const bare = await startBareBolt(world.slack.apiUrl);
  const bot = await startBot(world, "fig1-slash", serviceUrl);
  // Interleaved rounds, samples pooled: neither side always runs first on a warming machine.
  for (let round = 0; round < ROUNDS; round += 1) {
    add(bareSide, await measure(world, bare.origin));
    add(botSide, await measure(world, bot.origin));
  }
  await bare.stop();
  // The answers posted after the acks, as a check that the commands really ran.
  const expected = ROUNDS * (WARMUP + MEASURED);
  const deadline = Date.now() + 10_000;
  const answered = () => world.slack.calls("response_url").length - answersBefore;
  while (answered() < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await bot.stop();
  const app = summarize(botSide);
  const base = summarize(bareSide);

  const p99Ratio = ratio(app.p99, base.p99);
  const notes = [
    `${ROUNDS} interleaved rounds per side (bare Bolt, bot, bare Bolt, bot), each ${MEASURED} signed \`${COMMAND}\` commands at ${RATE_PER_SEC}/s after ${WARMUP} warm-up ones, open loop, ${CONNECTIONS} keep-alive connections, from a worker thread; percentiles over the ${app.samples} pooled samples`,
    `bot: ${app.non2xx} non-2xx, max ${app.max} ms, ${answered()} of ${expected} answers reached the fake response_url; bare Bolt: ${base.non2xx} non-2xx, max ${base.max} ms`,
  ];
  const problems = problemNote("the bot", bot.logFile);
  if (problems) notes.push(problems);
  if (app.errors.length + base.errors.length > 0)
    notes.push(`errors: ${[...app.errors, ...base.errors].join("; ")}`);
  return {
    id: "1",
    title: "slash command → HTTP ack, 50 commands/s",
    measures: [
      {
        name: "ack latency p50",
        value: app.p50,
        unit: "ms",
        baseline: { name: "bare Bolt no-op", value: base.p50 },
        ratio: ratio(app.p50, base.p50),
        targets: [],
      },
      {
        name: "ack latency p99",
        value: app.p99,
        unit: "ms",
        baseline: { name: "bare Bolt no-op", value: base.p99 },
        ratio: p99Ratio,
        targets: [
          {
            text: `≤ ${TARGET_P99_MS} ms`,
            met: app.p99 === null ? null : app.p99 <= TARGET_P99_MS && app.non2xx === 0,
          },
          {
            text: `≤ ${TARGET_RATIO}× bare Bolt p99`,
            met: p99Ratio === null ? null : p99Ratio <= TARGET_RATIO,
          },
        ],
      },
    ],
    notes,
    details: {
      bot: app,
      bareBolt: base,
      ratePerSec: RATE_PER_SEC,
      rounds: ROUNDS,
      measured: MEASURED,
      warmup: WARMUP,
    },
  };
}
