import { pollDelayMs } from "../../../src/jobs/scheduler.js";
import type { Sandbox } from "../../../src/sandbox/server.js";
import { RATE_BUCKETS } from "../../../src/service/rate-limits.js";
import { sleep } from "../support/net.js";
import { rateFloorMs } from "../support/rate-floor.js";
import type { FigureResult } from "../support/report.js";
import { startSandbox } from "../support/sandbox.js";
import { createPendingScreenings } from "../support/screenings.js";
import { round } from "../support/stats.js";
import { problemNote, startBot, type World } from "../support/world.js";

/**
 * Figure 4: N screenings pending in the sandbox (which enforces the service's AML limits, 5/s and
 * 150/min, with 429), each with a poll-screening job due now, as the `screen` command leaves them;
 * results go to one Slack channel per screening (so chat pacing plays no part). Measured: the
 * 429s the sandbox answered (target zero) and the time from scheduling to the last result at the
 * fake Slack API vs the floor: the earliest time N reads can be made under the limits given when
 * each order actually completed. Allowed: the floor plus one poll interval (the poll ramp's longest).
 */
const DURATION_MIN_MS = 1_000;
const DURATION_MAX_MS = 10_000;
const POLL_INTERVAL_MAX_MS = Math.max(...Array.from({ length: 40 }, (_, k) => pollDelayMs(k) ?? 0));
const channelOf = (i: number) => `C4S${i}`;

/** Epoch ms of the first message in each screening's channel, as far as they have arrived. */
function arrivals(world: World, n: number): Map<number, number> {
  const found = new Map<number, number>();
  const wanted = new Map(Array.from({ length: n }, (_, i) => [channelOf(i), i]));
  for (const call of world.slack.calls("chat.postMessage")) {
    const i = wanted.get(String(call.params.channel));
    if (i !== undefined && !found.has(i) && call.status === 200) found.set(i, call.at);
  }
  return found;
}

export async function screeningsFigure(world: World, n: number): Promise<FigureResult> {
  const { sandbox, stop } = await startSandbox("fig4", { screening: { demoData: false } });
  try {
    const spreadMs = (i: number) =>
      Math.round(DURATION_MIN_MS + (n > 1 ? i / (n - 1) : 0) * (DURATION_MAX_MS - DURATION_MIN_MS));
    const ids = await createPendingScreenings(sandbox, n, spreadMs);
    const bot = await startBot(world, "fig4-screenings", sandbox.url);
    const t0 = Date.now();
    for (const [i, id] of ids.entries()) {
      await bot.app.deps.jobs.schedule(
        { kind: "poll-screening", clientOrderId: id, conversation: { platform: "slack", id: channelOf(i) } },
        { delayMs: 0, jobId: `poll-screening:${id}` },
      );
    }
    // Upper bound of the wait: the floor if every order completed at its longest, plus slack.
    const worstFloor = rateFloorMs(new Array(n).fill(DURATION_MAX_MS), RATE_BUCKETS.aml);
    const deadline = t0 + worstFloor + POLL_INTERVAL_MAX_MS + 30_000;
    let found = arrivals(world, n);
    while (found.size < n && Date.now() < deadline) {
      await sleep(250);
      found = arrivals(world, n);
    }
    await bot.stop();
    return report(sandbox, ids, found, t0, bot.logFile);
  } finally {
    await stop();
  }
}

function report(
  sandbox: Sandbox,
  ids: string[],
  found: Map<number, number>,
  t0: number,
  logFile: string,
): FigureResult {
  const n = ids.length;
  const completed = ids.map((id) => sandbox.screening.order(id)?.completedAt ?? Number.NaN);
  const floorMs = rateFloorMs(
    completed.map((t) => t - t0),
    RATE_BUCKETS.aml,
  );
  const lastMs = found.size === n ? Math.max(...found.values()) - t0 : null;
  const reads = sandbox.calls("screening.read");
  const limited = sandbox.calls().filter((c) => c.status === 429).length;
  const overMs = lastMs === null ? null : lastMs - floorMs;
  const notes = [
    `scale: ${n} of the table's 1000 screenings (1000 need ~7 minutes at 150/min; --screenings=1000 runs them), against the real limits ${RATE_BUCKETS.aml.map((w) => `${w.points}/${w.durationMs / 1000}s`).join(" + ")}`,
    `orders complete ${DURATION_MIN_MS / 1000}–${DURATION_MAX_MS / 1000} s after creation (spread evenly); every poll job due at once; one Slack channel per screening`,
    `${reads.length} screening.read calls for ${n} results (${reads.length - n} polls of still-pending orders); ${found.size} of ${n} results arrived; last at ${round((lastMs ?? Number.NaN) / 1000, 1)} s, floor ${round(floorMs / 1000, 1)} s, over the floor by ${round((overMs ?? Number.NaN) / 1000, 1)} s; allowed: one poll interval (${POLL_INTERVAL_MAX_MS / 1000} s, the poll ramp's longest; its first is ${(pollDelayMs(0) ?? 0) / 1000} s)`,
  ];
  const problems = problemNote("the bot", logFile);
  if (problems) notes.push(problems);
  return {
    id: "4",
    title: `${n} pending screenings against the service's rate limits`,
    measures: [
      {
        name: "429s from the service",
        value: limited,
        unit: "",
        targets: [{ text: "zero", met: limited === 0 }],
      },
      {
        name: "time to the last result",
        value: round(lastMs === null ? null : lastMs / 1000, 1),
        unit: "s",
        baseline: { name: "floor the limits allow", value: round(floorMs / 1000, 1) },
        ratio: lastMs === null ? null : round(lastMs / floorMs, 2),
        targets: [
          {
            text: `≤ floor + one poll interval (${POLL_INTERVAL_MAX_MS / 1000} s)`,
            met: overMs === null ? false : overMs <= POLL_INTERVAL_MAX_MS,
          },
        ],
      },
    ],
    notes,
    details: {
      n,
      reads: reads.length,
      results: found.size,
      lastMs,
      floorMs,
      overMs,
      limited,
      pollIntervalMaxMs: POLL_INTERVAL_MAX_MS,
    },
  };
}
