import { type HaRedis, startRedisCluster, startRedisSentinel } from "../../support/redis-ha.js";
import { onCleanup } from "../support/cleanup.js";
import type { RequestSpec } from "../support/load-types.js";
import type { FigureResult, Measure } from "../support/report.js";
import { orderWebhook, slashCommand } from "../support/requests.js";
import { startSandbox } from "../support/sandbox.js";
import { round } from "../support/stats.js";
import { startBot, type World } from "../support/world.js";

/**
 * Figure 10: a Redis failover under load, on a real Sentinel group and a real 3-master Cluster
 * (test/support/redis-ha.ts). While four senders deliver signed webhooks (each sent again every
 * 200 ms until a 2xx, as the service retries) and a slash command goes out every 100 ms, the
 * master holding the bot's queues is killed (SIGKILL). Measured: the time from the kill until
 * commands are answered normally again (the first normal answer to a command sent after the last
 * one answered "Storage is unavailable" or not at all; 0 when none was), the slowest command
 * answer meanwhile, webhook answers refused (503 or no answer) vs accepted, and after the queues
 * drain, deliveries acknowledged but never posted (lost) or posted more than once.
 */
const TARGET_MS = 30_000;
const WEBHOOKS = 200;
const KILL_AFTER_ACKS = 50;
const POST_WAIT_MS = 70_000;
const UNAVAILABLE = "Storage is unavailable";

interface Run {
  commandsBackMs: number;
  slowestCommandMs: number;
  unavailableLines: number;
  refused: number;
  accepted: number;
  lost: number;
  duplicates: number;
}

async function send(origin: string, spec: RequestSpec): Promise<{ status: number; text: string }> {
  try {
    const response = await fetch(`${origin}${spec.path}`, {
      method: spec.method,
      headers: spec.headers,
      body: spec.body,
      signal: AbortSignal.timeout(10_000),
    });
    return { status: response.status, text: await response.text() };
  } catch {
    return { status: 0, text: "" };
  }
}

async function runOne(world: World, kind: "sentinel" | "cluster"): Promise<Run> {
  const ha: HaRedis = await (kind === "cluster" ? startRedisCluster() : startRedisSentinel());
  const haCleanup = onCleanup(`redis ${kind}`, () => ha.close());
  const { sandbox, stop } = await startSandbox(`fig10-${kind}`);
  const channel = kind === "cluster" ? "C0FIG10C" : "C0FIG10S";
  try {
    const bot = await startBot(world, `fig10-${kind}`, sandbox.url, {
      REDIS_URL: "",
      ...ha.env,
      ALERT_SLACK_CHANNEL: channel,
    });
    const base = kind === "cluster" ? 20_000_000 : 10_000_000;
    let acks = 0;
    let refused = 0;
    const lanes = [0, 1, 2, 3].map(async (lane) => {
      for (let i = lane; i < WEBHOOKS; i += 4) {
        for (;;) {
          const { status } = await send(bot.origin, orderWebhook(base + i, `5MFIG10${kind}${i}`));
          if (status >= 200 && status < 300) break;
          refused += 1;
          await new Promise((r) => setTimeout(r, 200));
        }
        acks += 1;
        await new Promise((r) => setTimeout(r, 20));
      }
    });
    const commands: { at: number; done: number; ok: boolean }[] = [];
    let commanding = true;
    const commandLoop = (async () => {
      while (commanding) {
        const at = performance.now();
        const spec = slashCommand("/ops help", {
          channel: "C0FIG10CMD",
          user: "U0BENCH",
          responseUrl: world.slack.responseUrl({ channel: "C0FIG10CMD", user: "U0BENCH" }),
        });
        const answer = await send(bot.origin, spec);
        const ok = answer.status === 200 && !answer.text.includes(UNAVAILABLE);
        commands.push({ at, done: performance.now(), ok });
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    while (acks < KILL_AFTER_ACKS) await new Promise((r) => setTimeout(r, 20));
    const killedAt = performance.now();
    await ha.killMaster(`{bench:fig10-${kind}}:jobs`);
    await ha.failedOver(TARGET_MS);
    await Promise.all(lanes);
    await new Promise((r) => setTimeout(r, 2_000));
    commanding = false;
    await commandLoop;
    const after = commands.filter((c) => c.done >= killedAt);
    const lastBad = after.filter((c) => !c.ok).at(-1);
    // Commands are back with the first normal answer to a command sent after the last refused one.
    const back = lastBad ? after.find((c) => c.ok && c.at > lastBad.at) : undefined;
    const ids = Array.from({ length: WEBHOOKS }, (_, i) => `5MFIG10${kind}${i}`);
    const posts = () =>
      world.slack
        .channelMessages(channel)
        .filter((m) => m.via === "chat.postMessage")
        .map((m) => `${m.text} ${JSON.stringify(m.blocks ?? [])}`);
    const count = (id: string) => posts().filter((t) => new RegExp(`\\b${id}\\b`).test(t)).length;
    const deadline = performance.now() + POST_WAIT_MS;
    while (performance.now() < deadline && ids.some((id) => count(id) === 0)) {
      await new Promise((r) => setTimeout(r, 500));
    }
    await new Promise((r) => setTimeout(r, 2_000));
    return {
      commandsBackMs: lastBad ? (back?.done ?? Number.POSITIVE_INFINITY) - killedAt : 0,
      slowestCommandMs: Math.max(0, ...after.map((c) => c.done - c.at)),
      unavailableLines: after.filter((c) => !c.ok).length,
      refused,
      accepted: acks,
      lost: ids.filter((id) => count(id) === 0).length,
      duplicates: ids.filter((id) => count(id) > 1).length,
    };
  } finally {
    await stop();
    await haCleanup.stop();
  }
}

function measures(kind: string, run: Run): Measure[] {
  const back = round(run.commandsBackMs, 0);
  return [
    {
      name: `${kind}: kill → commands answered again`,
      value: back,
      unit: "ms",
      targets: [{ text: `≤ ${TARGET_MS} ms`, met: back === null ? null : back <= TARGET_MS }],
    },
    {
      name: `${kind}: slowest command answer meanwhile`,
      value: round(run.slowestCommandMs, 0),
      unit: `ms (${run.unavailableLines} "unavailable")`,
      targets: [],
    },
    {
      name: `${kind}: webhook answers refused / accepted`,
      value: run.refused,
      unit: `/ ${run.accepted}`,
      targets: [],
    },
    {
      name: `${kind}: acknowledged but lost, posted twice`,
      value: run.lost + run.duplicates,
      unit: `(lost ${run.lost}, twice ${run.duplicates})`,
      targets: [{ text: "0", met: run.lost + run.duplicates === 0 }],
    },
  ];
}

export async function failoverFigure(world: World): Promise<FigureResult> {
  const sentinel = await runOne(world, "sentinel");
  const cluster = await runOne(world, "cluster");
  return {
    id: "13",
    title: "Redis failover (Sentinel, Cluster)",
    measures: [...measures("Sentinel", sentinel), ...measures("Cluster", cluster)],
    notes: [
      `${WEBHOOKS} signed webhooks from 4 senders (each retried every 200 ms until a 2xx) and a slash command every 100 ms; the master holding the bot's queues killed (SIGKILL) after ${KILL_AFTER_ACKS} acknowledgements; sentinels: down-after 1 s; cluster: node timeout 1 s; deliveries waited for up to ${POST_WAIT_MS / 1000} s (BullMQ's stalled check hands a job that ran on the dead master to a worker again within ~30 s)`,
    ],
    details: { sentinel, cluster },
  };
}
