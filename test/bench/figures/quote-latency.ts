import type { Reply } from "../../../src/core/reply.js";
import { tronAddress } from "../../../src/sandbox/families/energy/common.js";
import type { Sandbox } from "../../../src/sandbox/server.js";
import { startBareQuote } from "../baselines/bare-quote.js";
import { runLoad } from "../support/load.js";
import type { RequestSpec } from "../support/load-types.js";
import type { FigureResult } from "../support/report.js";
import { slashCommand } from "../support/requests.js";
import { startSandbox } from "../support/sandbox.js";
import { percentile, ratio, round } from "../support/stats.js";
import { type InProcessBot, problemNote, startBot, type World } from "../support/world.js";

/**
 * Figure 7: quote → Confirm button. First SPENDS energy orders are quoted and confirmed through
 * the core (each one a real order at the sandbox, which enforces the service's limits: userinfo
 * 6/min, the open deny-list lookup 10/s and 300/min). Then signed `/ops energy <address> 65k`
 * commands, each for a new address, are POSTed to /slack/events at RATE_PER_SEC, open loop, over
 * CONVERSATIONS channels; latency = command sent → its quote (with a Confirm button) posted to the
 * fake Slack's response_url. Baseline: a bare Bolt app that acks and posts a canned quote with two
 * buttons to the response_url, under the same load, in the same run.
 */
const RATE_PER_SEC = 20;
const CONVERSATIONS = 20;
const WARMUP = 40;
const MEASURED = 400;
const SPENDS = 100;
const SPEND_CONCURRENCY = 10;
const CONNECTIONS = 4;
const USER = "U0BENCHQ";
const TARGET_P99_MS = 300;
const ANSWER_WAIT_MS = 30_000;

const channelOf = (i: number) => `C7Q${i % CONVERSATIONS}`;

function confirmToken(reply: Reply): string | undefined {
  for (const block of reply.blocks) {
    if (block.type !== "buttons") continue;
    const confirm = block.buttons.find((b) => b.label.startsWith("Confirm"));
    if (confirm) return confirm.token;
  }
  return undefined;
}

/** Quotes and confirms `count` energy orders through the core, SPEND_CONCURRENCY at a time. */
async function spend(bot: InProcessBot, count: number): Promise<{ placed: number; failed: string[] }> {
  const actor = { platform: "slack", userId: USER } as const;
  let next = 0;
  let placed = 0;
  const failed: string[] = [];
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const conversation = { platform: "slack", id: channelOf(i) } as const;
      const text = `energy ${tronAddress(`fig7-spend-${i}`)} 65k`;
      const quote = await bot.app.core.handle({ kind: "command", actor, conversation, text });
      const token = confirmToken(quote);
      if (!token) {
        failed.push(quote.summary);
        continue;
      }
      const done = await bot.app.core.handle({ kind: "action", actor, conversation, token });
      if (done.summary.startsWith("Energy order")) placed += 1;
      else failed.push(done.summary);
    }
  };
  await Promise.all(Array.from({ length: SPEND_CONCURRENCY }, worker));
  return { placed, failed };
}

interface Side {
  latencies: number[];
  withoutConfirm: number;
  unanswered: number;
  non2xx: number;
}

/** Sends the quotes to `origin` and matches each to its answer at the fake response_url by address. */
async function measure(world: World, origin: string, tag: string): Promise<Side> {
  const addresses = Array.from({ length: WARMUP + MEASURED }, (_, i) => tronAddress(`fig7-${tag}-${i}`));
  const before = world.slack.calls("response_url").length;
  const requests: RequestSpec[] = addresses.map((address, i) =>
    slashCommand(`/ops energy ${address} 65k`, {
      channel: channelOf(i),
      user: USER,
      responseUrl: world.slack.responseUrl({ channel: channelOf(i), user: USER }),
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
  const answers = () => world.slack.calls("response_url").slice(before);
  const deadline = Date.now() + ANSWER_WAIT_MS;
  while (answers().length < addresses.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  const byAddress = new Map<string, { at: number; confirm: boolean }>();
  for (const call of answers()) {
    const body = JSON.stringify(call.params);
    const address = /T[1-9A-HJ-NP-Za-km-z]{33}/.exec(body)?.[0];
    if (address && !byAddress.has(address))
      byAddress.set(address, { at: call.at, confirm: body.includes("Confirm ") });
  }
  const side: Side = { latencies: [], withoutConfirm: 0, unanswered: 0, non2xx: 0 };
  for (let i = WARMUP; i < addresses.length; i += 1) {
    const status = result.status[i] ?? 0;
    if (status < 200 || status > 299) side.non2xx += 1;
    const answer = byAddress.get(addresses[i] ?? "");
    const sent = result.sentAt[i];
    if (!answer || sent === undefined) side.unanswered += 1;
    else if (!answer.confirm) side.withoutConfirm += 1;
    else side.latencies.push(answer.at - sent);
  }
  return side;
}

export async function quoteLatencyFigure(world: World): Promise<FigureResult> {
  const bare = await startBareQuote(world.slack.apiUrl);
  const base = await measure(world, bare.origin, "bare");
  await bare.stop();
  const { sandbox, stop } = await startSandbox("fig7");
  try {
    const bot = await startBot(world, "fig7-quote", sandbox.url, { OPS_OPERATORS: `slack:${USER}` });
    try {
      const t0 = Date.now();
      const spent = await spend(bot, SPENDS);
      const spendS = round((Date.now() - t0) / 1000, 1);
      const mark = sandbox.calls().length;
      const app = await measure(world, bot.origin, "bot");
      const during = { ...callsSince(sandbox, mark), spendS };
      return report(app, base, spent, during, problemNote("the bot", bot.logFile));
    } finally {
      await bot.stop();
    }
  } finally {
    await stop();
  }
}

interface SandboxCounts {
  userinfo: number;
  lookups: number;
  batches: number;
  limited: number;
  spendS: number | null;
}

const stats = (s: Side) => ({
  p50: round(percentile(s.latencies, 50), 1),
  p99: round(percentile(s.latencies, 99), 1),
  max: round(percentile(s.latencies, 100), 1),
});

function report(
  app: Side,
  base: Side,
  spent: { placed: number; failed: string[] },
  during: SandboxCounts,
  problems: string | undefined,
): FigureResult {
  const a = stats(app);
  const b = stats(base);
  const complete = app.unanswered + app.withoutConfirm + app.non2xx === 0;
  const notes = [
    `${SPENDS} energy orders quoted and confirmed first (${spent.placed} placed in ${during.spendS} s${spent.failed.length > 0 ? `; not placed: ${spent.failed.slice(0, 3).join(" | ")}` : ""}); then ${MEASURED} measured quotes after ${WARMUP} warm-up ones at ${RATE_PER_SEC}/s over ${CONVERSATIONS} channels, each for a new address, open loop, ${CONNECTIONS} keep-alive connections; the same load for the bare Bolt app first`,
    `bot: ${app.latencies.length} quotes with Confirm, ${app.withoutConfirm} without, ${app.unanswered} unanswered, ${app.non2xx} non-2xx acks, max ${a.max} ms; bare: ${base.latencies.length} answered, max ${b.max} ms`,
    `service calls during the quotes: userinfo ${during.userinfo} (6/min allowed), open deny-list lookups ${during.lookups}, batch lookups ${during.batches}, 429 answers ${during.limited}`,
  ];
  if (problems) notes.push(problems);
  return {
    id: "7",
    title: `quote → Confirm button, ${RATE_PER_SEC} quotes/s over ${CONVERSATIONS} conversations, after ${SPENDS} spends`,
    measures: [
      {
        name: "quote → Confirm p50",
        value: a.p50,
        unit: "ms",
        baseline: { name: "bare Bolt canned quote", value: b.p50 },
        ratio: ratio(a.p50, b.p50),
        targets: [],
      },
      {
        name: "quote → Confirm p99",
        value: a.p99,
        unit: "ms",
        baseline: { name: "bare Bolt canned quote", value: b.p99 },
        ratio: ratio(a.p99, b.p99),
        targets: [
          {
            text: `≤ ${TARGET_P99_MS} ms, every quote with Confirm, zero 429s`,
            met: a.p99 === null ? null : a.p99 <= TARGET_P99_MS && complete && during.limited === 0,
          },
        ],
      },
    ],
    notes,
    details: {
      bot: { ...a, ...app, latencies: undefined },
      bare: { ...b, ...base, latencies: undefined },
      during,
    },
  };
}

/** What the bot asked of the service from call `mark` on. */
function callsSince(sandbox: Sandbox, mark: number): Omit<SandboxCounts, "spendS"> {
  const calls = sandbox.calls().slice(mark);
  const of = (endpoint: string) => calls.filter((c) => c.endpoint === endpoint).length;
  return {
    userinfo: of("userinfo.get"),
    lookups: of("compliance.lookup"),
    batches: of("compliance.batch"),
    limited: calls.filter((c) => c.status === 429).length,
  };
}
