import { Redis } from "ioredis";
import { rememberOrigin } from "../../../src/core/origins.js";
import { bareOriginKey, startBareConsumer } from "../baselines/bare-consumer.js";
import { startBareIngest } from "../baselines/bare-ingest.js";
import { runLoad } from "../support/load.js";
import type { RateResult } from "../support/load-types.js";
import { sleep } from "../support/net.js";
import type { FigureResult } from "../support/report.js";
import { orderWebhook } from "../support/requests.js";
import { percentile, ratio, round } from "../support/stats.js";
import { problemNote, startBot, type World } from "../support/world.js";

/**
 * Figure 3: order webhooks at 100/s (open loop) for orders whose origin conversation was recorded
 * first, spread round-robin over CHANNELS Slack channels: each channel gets one message every
 * 2.5 s, so Slack's ~1/s per-channel pacing never delays one and the figure is the pipeline's own
 * latency (verify → inbox job → route → notify job → chat.postMessage). Latency = the 2xx
 * received by the sender → the call recorded by the fake Slack API (clamped at 0: a consumer
 * may post before the 2xx has travelled back).
 */
const RATE_PER_SEC = 100;
const COUNT = 1_000;
const CHANNELS = 250;
const CONNECTIONS = 8;
const SETTLE_MS = 20_000;
/** The first notice to a quiet channel (issue 30): sent at once, not coalesced. */
const TARGET_P50_MS = 50;
const TARGET_P99_MS = 150;

interface Run {
  latencies: number[];
  missing: number;
  non2xx: number;
  errors: string[];
}

const channelOf = (tag: string, i: number) => `C3${tag}${i % CHANNELS}`;

/** Sends the webhooks, then matches each accepted one with its message at the fake Slack API. */
async function measure(world: World, origin: string, prefix: string, firstDeliveryId: number): Promise<Run> {
  const requests = Array.from({ length: COUNT }, (_, i) =>
    orderWebhook(firstDeliveryId + i, `${prefix}${i}`),
  );
  const result: RateResult = await runLoad({
    mode: "rate",
    origin,
    connections: CONNECTIONS,
    ratePerSec: RATE_PER_SEC,
    count: COUNT,
    source: { kind: "list", requests },
  });
  const pattern = new RegExp(`order ${prefix}(\\d+)\\b`);
  const arrivals = new Map<number, number>();
  const deadline = Date.now() + SETTLE_MS;
  while (arrivals.size < COUNT && Date.now() < deadline) {
    for (const call of world.slack.calls("chat.postMessage")) {
      const i = pattern.exec(String(call.params.text ?? ""))?.[1];
      if (i !== undefined && !arrivals.has(Number(i))) arrivals.set(Number(i), call.at);
    }
    if (arrivals.size < COUNT) await sleep(100);
  }
  const latencies: number[] = [];
  let non2xx = 0;
  result.status.forEach((status, i) => {
    const accepted = result.doneAt[i];
    const arrived = arrivals.get(i);
    if (status < 200 || status > 299 || accepted === undefined) non2xx += 1;
    // A message already there when the 2xx reached the sender counts as 0 (the fake's clock has 1 ms steps).
    else if (arrived !== undefined) latencies.push(Math.max(0, arrived - accepted));
  });
  return { latencies, missing: COUNT - non2xx - latencies.length, non2xx, errors: result.errors };
}

async function bareRun(world: World): Promise<Run> {
  const prefix = "bench:fig3-bare:";
  const redis = new Redis(world.redis.url);
  try {
    const pipeline = redis.pipeline();
    for (let i = 0; i < COUNT; i += 1) pipeline.set(bareOriginKey(prefix, `F3BARE-${i}`), channelOf("A", i));
    await pipeline.exec();
  } finally {
    await redis.quit();
  }
  const ingest = await startBareIngest({ redisUrl: world.redis.url, prefix, queue: true });
  const consumer = startBareConsumer({
    redisUrl: world.redis.url,
    prefix,
    slackOrigin: world.slack.origin,
    concurrency: 8,
  });
  try {
    return await measure(world, ingest.origin, "F3BARE-", 3_000_000);
  } finally {
    await ingest.stop();
    await consumer.stop();
  }
}

async function botRun(world: World, serviceUrl: string): Promise<{ run: Run; logFile: string }> {
  const bot = await startBot(world, "fig3-notify", serviceUrl);
  try {
    for (let i = 0; i < COUNT; i += 1) {
      await rememberOrigin(bot.app.deps.store, "order", `F3BOT-${i}`, {
        platform: "slack",
        id: channelOf("B", i),
      });
    }
    return { run: await measure(world, bot.origin, "F3BOT-", 4_000_000), logFile: bot.logFile };
  } finally {
    await bot.stop();
  }
}

const stats = (r: Run) => ({
  p50: round(percentile(r.latencies, 50), 1),
  p99: round(percentile(r.latencies, 99), 1),
  max: round(percentile(r.latencies, 100), 1),
});

export async function notifyLatencyFigure(world: World, serviceUrl: string): Promise<FigureResult> {
  const bare = await bareRun(world);
  const { run: app, logFile } = await botRun(world, serviceUrl);
  const a = stats(app);
  const b = stats(bare);
  const notes = [
    `${COUNT} signed delegation.confirmed webhooks at ${RATE_PER_SEC}/s, origins recorded beforehand, round-robin over ${CHANNELS} Slack channels (one message per channel every ${CHANNELS / RATE_PER_SEC} s), so the ~1/s per-channel pacing does not apply`,
    `bot: max ${a.max} ms, ${app.missing} messages missing after ${SETTLE_MS / 1000} s, ${app.non2xx} webhooks not accepted; bare: max ${b.max} ms, ${bare.missing} missing`,
  ];
  const problems = problemNote("the bot", logFile);
  if (problems) notes.push(problems);
  if (app.errors.length + bare.errors.length > 0)
    notes.push(`errors: ${[...app.errors, ...bare.errors].join("; ")}`);
  const complete = app.missing === 0 && app.non2xx === 0;
  return {
    id: "3",
    title: "webhook accepted → message at the fake Slack API, 100/s",
    measures: [
      {
        name: "accepted → message p50",
        value: a.p50,
        unit: "ms",
        baseline: { name: "bare SET NX+list+BLPOP", value: b.p50 },
        ratio: ratio(a.p50, b.p50),
        targets: [{ text: `≤ ${TARGET_P50_MS} ms`, met: a.p50 === null ? null : a.p50 <= TARGET_P50_MS }],
      },
      {
        name: "accepted → message p99",
        value: a.p99,
        unit: "ms",
        baseline: { name: "bare SET NX+list+BLPOP", value: b.p99 },
        ratio: ratio(a.p99, b.p99),
        targets: [
          {
            text: `≤ ${TARGET_P99_MS} ms, none missing`,
            met: a.p99 === null ? null : a.p99 <= TARGET_P99_MS && complete,
          },
        ],
      },
    ],
    notes,
    details: {
      bot: { ...a, missing: app.missing, non2xx: app.non2xx },
      bare: { ...b, missing: bare.missing, non2xx: bare.non2xx },
      channels: CHANNELS,
    },
  };
}
