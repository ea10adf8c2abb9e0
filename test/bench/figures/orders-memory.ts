import { randomBytes } from "node:crypto";
import { request } from "undici";
import { signSlackRequest } from "../../../adapters/slack/verify.js";
import { tronAddress } from "../../../src/sandbox/families/energy/common.js";
import type { FakeSlackMessage } from "../../fakes/slack-api.js";
import { FAKE_SLACK_TEAM } from "../../fakes/slack-api.js";
import { startChildBot } from "../support/child-bot.js";
import { sampleRss } from "../support/children.js";
import { sleep } from "../support/net.js";
import type { FigureResult } from "../support/report.js";
import { BENCH_SIGNING_SECRET, slashCommand } from "../support/requests.js";
import { limitedByEndpoint, limitedCalls, startSandbox } from "../support/sandbox.js";
import { max, median, ratio, round } from "../support/stats.js";
import type { World } from "../support/world.js";

/**
 * Figure 8: RSS of the built bot (child process, Slack + Telegram on) while N energy orders
 * (default 10 000) are quoted with `/ops energy`, confirmed with a click on Confirm (signed
 * Slack requests, as a user would), and left pending: the sandbox never confirms their delivery
 * within the run, so each stays watched. Idle: sampled once /healthz is 200 and start-up settled.
 * Warm: sampled after the first fifth of the orders (WARM_SHARE); after: once every order was placed. Flat: after ≤
 * warm × (1 + FLAT_SHARE); idle is reported beside it.
 */
const SETTLE_MS = 3_000;
const IDLE_MS = 3_000;
const AFTER_SETTLE_MS = 3_000;
const AFTER_MS = 5_000;
const SAMPLE_EVERY_MS = 250;
const IN_FLIGHT = 16;
/**
 * The first orders warm the bot up (JIT, first use of each code path, pools, and V8 growing its
 * heap to the size this load works in): the baseline of "flat". A fifth of the run, at least 200:
 * after only 200 orders the heap had not reached its working size (runs read 110 MB then, and
 * 133–144 MB after 2000, 3000 or 10 000 orders alike), so the check measured V8's heap sizing, not
 * what each pending order keeps.
 */
const WARM_SHARE = 0.2;
const WARM_MIN_ORDERS = 200;
const USER = "U0BENCHO";
const FLAT_SHARE = 0.15;
const ANSWER_TIMEOUT_MS = 30_000;
/** The service's limit on 5-minute orders (spec: 50 per second per IP). */
const ORDER5M_PER_SECOND = 50;
const channelOf = (i: number) => `C8O${i % 50}`;

/** Quote messages as they reach the fake Slack, by the address they quote. */
function quoteWatcher(world: World) {
  let seen = 0;
  const found = new Map<string, FakeSlackMessage>();
  return async (address: string): Promise<FakeSlackMessage | undefined> => {
    const deadline = Date.now() + ANSWER_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const all = world.slack.allMessages();
      for (; seen < all.length; seen += 1) {
        const m = all[seen];
        const quoted = m && /T[1-9A-HJ-NP-Za-km-z]{33}/.exec(JSON.stringify(m.blocks ?? []))?.[0];
        if (m && quoted && !found.has(quoted)) found.set(quoted, m);
      }
      const message = found.get(address);
      if (message) {
        found.delete(address);
        return message;
      }
      await sleep(20);
    }
    return undefined;
  };
}

async function post(origin: string, body: string, contentType: string): Promise<number> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const reply = await request(`${origin}/slack/events`, {
    method: "POST",
    headers: {
      "content-type": contentType,
      "x-slack-request-timestamp": timestamp,
      "x-slack-signature": signSlackRequest(BENCH_SIGNING_SECRET, timestamp, body),
    },
    body,
  });
  await reply.body.dump();
  return reply.statusCode;
}

/**
 * `action_ts` is the click's once-only identity (with `action_id`) at the bot's gate, so each
 * click gets its own, as Slack's own are unique: two clicks in one millisecond are not repeats.
 */
function clickBody(world: World, message: FakeSlackMessage, i: number): string | undefined {
  const confirm = (message.blocks ?? [])
    .filter((b) => b.type === "actions")
    .flatMap((b) => b.elements as Record<string, unknown>[])
    .find((b) => /^Confirm/.test((b.text as { text: string }).text));
  if (!confirm) return undefined;
  const payload = {
    type: "block_actions",
    user: { id: USER, username: "bench", name: "bench", team_id: FAKE_SLACK_TEAM },
    api_app_id: "A0OPSBOT",
    token: "verification-token",
    container: { type: "message", message_ts: message.ts, channel_id: message.channel, is_ephemeral: false },
    trigger_id: `${Date.now()}.${randomBytes(8).toString("hex")}`,
    team: { id: FAKE_SLACK_TEAM, domain: "fake" },
    is_enterprise_install: false,
    channel: { id: message.channel, name: "bench" },
    message: { type: "message", ts: message.ts, text: message.text, blocks: message.blocks },
    response_url: world.slack.responseUrl({ channel: message.channel, user: USER, messageTs: message.ts }),
    actions: [
      {
        ...confirm,
        block_id: randomBytes(6).toString("hex"),
        action_ts: `${Math.floor(Date.now() / 1000)}.${String(i).padStart(6, "0")}`,
      },
    ],
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

/** Quotes and confirms `count` orders, IN_FLIGHT at a time; what went wrong is counted. */
async function placeOrders(
  world: World,
  origin: string,
  from: number,
  to: number,
  problems: { noQuote: number; noConfirm: number; non2xx: number },
): Promise<void> {
  const waitQuote = quoteWatcher(world);
  let next = from;
  const worker = async () => {
    for (let i = next++; i < to; i = next++) {
      const address = tronAddress(`fig8-${i}`);
      const channel = channelOf(i);
      const command = slashCommand(`/ops energy ${address} 65k`, {
        channel,
        user: USER,
        responseUrl: world.slack.responseUrl({ channel, user: USER }),
      });
      if ((await post(origin, command.body ?? "", command.headers["content-type"] ?? "")) !== 200) {
        problems.non2xx += 1;
        continue;
      }
      const message = await waitQuote(address);
      if (!message) {
        problems.noQuote += 1;
        continue;
      }
      const click = clickBody(world, message, i);
      if (!click) problems.noConfirm += 1;
      else if ((await post(origin, click, "application/x-www-form-urlencoded")) !== 200) problems.non2xx += 1;
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

export async function ordersMemoryFigure(world: World, count: number): Promise<FigureResult> {
  // Deliveries confirmed only after an hour: every order stays pending for the whole run.
  const { sandbox, stop } = await startSandbox("fig8", { energy: { webhookDelayMs: 3_600_000 } });
  try {
    const bot = await startChildBot(world, {
      name: "fig8-orders",
      redisUrl: world.redis.db(3),
      serviceUrl: sandbox.url,
      env: { OPS_OPERATORS: `slack:${USER}` },
    });
    try {
      await sleep(SETTLE_MS);
      const idle = await sampleRss(bot.child, IDLE_MS, SAMPLE_EVERY_MS);
      const started = performance.now();
      const problems = { noQuote: 0, noConfirm: 0, non2xx: 0 };
      const placed = () => sandbox.calls("order5m.create").filter((c) => c.status === 200).length;
      const settled = async (n: number) => {
        // The last clicks' orders are still being placed right after their acks: clicks come
        // faster than the service's order5m limit lets orders through, so the wait allows for it.
        const deadline = Date.now() + 60_000 + (n / ORDER5M_PER_SECOND) * 1_000;
        while (placed() < n - problems.noQuote - problems.noConfirm && Date.now() < deadline)
          await sleep(250);
        await sleep(AFTER_SETTLE_MS);
      };
      const warmCount = Math.min(count, Math.max(WARM_MIN_ORDERS, Math.round(count * WARM_SHARE)));
      await placeOrders(world, bot.origin, 0, warmCount, problems);
      await settled(warmCount);
      const warm = await sampleRss(bot.child, AFTER_MS, SAMPLE_EVERY_MS);
      await placeOrders(world, bot.origin, warmCount, count, problems);
      const tookS = round((performance.now() - started) / 1000, 1);
      await settled(count);
      const after = await sampleRss(bot.child, AFTER_MS, SAMPLE_EVERY_MS);
      const limited = limitedCalls(sandbox);
      return report({ count, warmCount, idle, warm, after, tookS, problems, placed: placed(), limited });
    } finally {
      await bot.child.stop();
    }
  } finally {
    await stop();
  }
}

interface Outcome {
  count: number;
  warmCount: number;
  idle: number[];
  warm: number[];
  after: number[];
  tookS: number | null;
  problems: { noQuote: number; noConfirm: number; non2xx: number };
  placed: number;
  /** The calls the sandbox answered 429. */
  limited: readonly { endpoint: string }[];
}

function report(o: Outcome): FigureResult {
  const idle = round(median(o.idle), 1);
  const warm = round(median(o.warm), 1);
  const after = round(median(o.after), 1);
  const growth = ratio(after, warm);
  const flat = growth === null ? null : growth <= 1 + FLAT_SHARE && o.placed === o.count;
  return {
    id: "8",
    title: `memory: ${o.count} energy orders quoted, confirmed and left pending (built bot, child process)`,
    measures: [
      {
        name: `RSS after ${o.count} pending orders (median)`,
        value: after,
        unit: "MB",
        baseline: { name: `the same bot after its first ${o.warmCount}`, value: warm },
        ratio: growth,
        targets: [{ text: `flat: ≤ +${FLAT_SHARE * 100}%, every order placed`, met: flat }],
      },
      {
        name: `RSS after ${o.count} pending orders vs idle`,
        value: after,
        unit: "MB",
        baseline: { name: "the same bot idle", value: idle },
        ratio: ratio(after, idle),
        targets: [],
      },
    ],
    notes: [
      `${o.count} \`/ops energy\` quotes, each confirmed by a signed Confirm click, ${IN_FLIGHT} in flight, in ${o.tookS} s; ${o.placed} orders placed at the sandbox (delivery held for an hour: all pending), ${o.limited.length} answered 429${o.limited.length > 0 ? ` (${limitedByEndpoint(o.limited)})` : ""}; not placed: ${o.problems.noQuote} without a quote, ${o.problems.noConfirm} without Confirm, ${o.problems.non2xx} non-2xx`,
      `idle: median of ${o.idle.length} samples (peak ${round(max(o.idle), 1)} MB); after the first ${o.warmCount} orders: median ${warm} MB (peak ${round(max(o.warm), 1)} MB); after all: median of ${o.after.length} samples over ${AFTER_MS / 1000} s, ${AFTER_SETTLE_MS / 1000} s after the last order (peak ${round(max(o.after), 1)} MB)`,
    ],
    details: {
      idleMb: o.idle.map((v) => round(v, 1)),
      warmMb: o.warm.map((v) => round(v, 1)),
      afterMb: o.after.map((v) => round(v, 1)),
      ...o.problems,
    },
  };
}
