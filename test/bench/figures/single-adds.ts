import { join } from "node:path";
import { DEFAULT_API_KEY, DEFAULT_REAL_IP } from "../../../src/sandbox/accounts.js";
import { tronAddress } from "../../../src/sandbox/families/energy/common.js";
import { createServiceClient } from "../../../src/service/client.js";
import { START_ARGS } from "../support/build.js";
import { spawnNode } from "../support/children.js";
import { freePort, LOOPBACK, sleep, waitHealthy } from "../support/net.js";
import type { FigureResult } from "../support/report.js";
import { slashCommand } from "../support/requests.js";
import { limitedByEndpoint, limitedCalls, startSandbox } from "../support/sandbox.js";
import { percentile, ratio, round } from "../support/stats.js";
import { botEnv, type World } from "../support/world.js";

/**
 * Figure 14: single `watch add`s. The built bot in a child process (Slack, Redis, the sandbox
 * enforcing the service's limits: the open deny-list lookup 10/s and 300/min per IP). ADDS signed
 * `/ops watch add <address>` commands, one address each, sent open loop at RATE/s round-robin over
 * CHANNELS Slack channels, as a team adds addresses one by one. Measured: first sent → last
 * answered at the fake response_url (target: the send pace + 10 s, every one answered), each
 * command's answer time, the deny-list calls and the 429s. Baseline: the same ADDS verdicts asked
 * by the service client alone at the same pace, one single-address batch call each.
 */
const ADDS = 2000;
const RATE = 100;
const CHANNELS = 20;
const SLACK_MARGIN_S = 10;
const ANSWER_WAIT_MS = 60_000;
const POLL_MS = 20;
const watchUser = "U14BENCH";

const addressOf = (i: number) => tronAddress(`bench-single-add-${i}`);
const channelOf = (i: number) => `C14S${i % CHANNELS}`;
const ADDRESS = /T[1-9A-HJ-NP-Za-km-z]{33}/;

interface Sent {
  /** First sent → last answered, ms; null when not every one was answered. */
  totalMs: number | null;
  perCommandMs: number[];
  answered: number;
  non2xx: number;
}

/** Open loop: command i leaves at t0 + i / RATE s, whatever the earlier ones are doing. */
async function sendAdds(world: World, origin: string): Promise<Sent> {
  const sentAt = new Map<string, number>();
  const answeredAt = new Map<string, number>();
  let non2xx = 0;
  let seen = 0;
  const watchAnswers = () => {
    const messages = world.slack.allMessages();
    for (; seen < messages.length; seen += 1) {
      const m = messages[seen];
      const address = m?.via === "response_url" ? ADDRESS.exec(m.text)?.[0] : undefined;
      if (address && sentAt.has(address) && !answeredAt.has(address)) answeredAt.set(address, Date.now());
    }
  };
  const poller = setInterval(watchAnswers, POLL_MS);
  const t0 = Date.now();
  const requests: Promise<void>[] = [];
  try {
    for (let i = 0; i < ADDS; i += 1) {
      const wait = t0 + (i * 1000) / RATE - Date.now();
      if (wait > 0) await sleep(wait);
      const address = addressOf(i);
      const channel = channelOf(i);
      const request = slashCommand(`/ops watch add ${address}`, {
        channel,
        user: watchUser,
        responseUrl: world.slack.responseUrl({ channel, user: watchUser }),
      });
      sentAt.set(address, Date.now());
      requests.push(
        fetch(`${origin}${request.path}`, {
          method: request.method,
          headers: request.headers,
          ...(request.body !== undefined && { body: request.body }),
        })
          .then(async (r) => {
            if (r.status >= 300) non2xx += 1;
            await r.arrayBuffer();
          })
          .catch(() => {
            non2xx += 1;
          }),
      );
    }
    await Promise.all(requests);
    const deadline = Date.now() + ANSWER_WAIT_MS;
    while (answeredAt.size < ADDS && Date.now() < deadline) await sleep(POLL_MS);
    watchAnswers();
  } finally {
    clearInterval(poller);
  }
  const perCommandMs = [...answeredAt].map(([a, at]) => at - (sentAt.get(a) ?? at));
  const last = Math.max(...answeredAt.values());
  return {
    totalMs: answeredAt.size === ADDS ? last - t0 : null,
    perCommandMs,
    answered: answeredAt.size,
    non2xx,
  };
}

/** The floor: the same verdicts asked by the client alone, one single-address batch call each at RATE/s. */
async function bareAtPace(serviceUrl: string): Promise<number> {
  const client = createServiceClient({
    baseUrl: serviceUrl,
    apiKey: DEFAULT_API_KEY,
    realIp: DEFAULT_REAL_IP,
  });
  const t0 = Date.now();
  const calls: Promise<unknown>[] = [];
  for (let i = 0; i < ADDS; i += 1) {
    const wait = t0 + (i * 1000) / RATE - Date.now();
    if (wait > 0) await sleep(wait);
    calls.push(client.compliance.batch([tronAddress(`bench-single-bare-${i}`)]));
  }
  await Promise.all(calls);
  return Date.now() - t0;
}

export async function singleAddsFigure(world: World): Promise<FigureResult> {
  const { sandbox, stop } = await startSandbox("fig14", { screening: { demoData: false } });
  const port = await freePort();
  const child = spawnNode({
    name: "fig14-single-adds",
    args: START_ARGS,
    cwd: world.repo,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      ...botEnv(world, { redisUrl: world.redis.db(5), serviceUrl: sandbox.url, port }),
      OPS_OPERATORS: `slack:${watchUser}`,
    },
    logFile: join(world.logDir, "fig14-single-adds.log"),
  });
  try {
    await waitHealthy(`http://${LOOPBACK}:${port}`, child.spawnedAt, 20_000, 5);
    await sleep(1_000);
    sandbox.clearCalls();
    const sent = await sendAdds(world, `http://${LOOPBACK}:${port}`);
    const lookups = sandbox.calls("compliance.lookup").length;
    const batches = sandbox.calls("compliance.batch").length;
    const limited = limitedCalls(sandbox);
    await sleep(1_000);
    sandbox.clearCalls();
    const bareMs = await bareAtPace(sandbox.url);
    return report(sent, {
      lookups,
      batches,
      limited: limited.length,
      bareMs,
      limitedText: limitedByEndpoint(limited),
    });
  } finally {
    await child.stop();
    await stop();
  }
}

interface Calls {
  lookups: number;
  batches: number;
  limited: number;
  limitedText: string;
  bareMs: number;
}

function report(sent: Sent, calls: Calls): FigureResult {
  const paceS = ADDS / RATE;
  const totalS = sent.totalMs === null ? null : round(sent.totalMs / 1000, 1);
  const bareS = round(calls.bareMs / 1000, 1);
  return {
    id: "14",
    title: `${ADDS} single \`watch add\`s at ${RATE}/s over ${CHANNELS} channels`,
    measures: [
      {
        name: "first sent → last answered",
        value: totalS,
        unit: "s",
        baseline: { name: `${ADDS} bare 1-address batch calls at ${RATE}/s`, value: bareS },
        ratio: ratio(totalS, bareS),
        targets: [
          {
            text: `≤ ${paceS + SLACK_MARGIN_S} s (pace + ${SLACK_MARGIN_S}), all answered`,
            met: totalS !== null && totalS <= paceS + SLACK_MARGIN_S,
          },
        ],
      },
      {
        name: "429s from the service",
        value: calls.limited,
        unit: "",
        targets: [{ text: "0", met: calls.limited === 0 }],
      },
    ],
    notes: [
      `${sent.answered} of ${ADDS} answered (${sent.non2xx} non-2xx acks); command → answer p50/p99 ${round(percentile(sent.perCommandMs, 50), 0)}/${round(percentile(sent.perCommandMs, 99), 0)} ms; deny-list calls: ${calls.lookups} open lookups, ${calls.batches} batch calls${calls.limited > 0 ? `; 429s: ${calls.limitedText}` : ""}`,
    ],
    details: {
      lookups: calls.lookups,
      batches: calls.batches,
      perCommandP99Ms: percentile(sent.perCommandMs, 99),
    },
  };
}
