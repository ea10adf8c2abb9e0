import { tronAddress } from "../../../src/sandbox/families/energy/common.js";
import type { Sandbox } from "../../../src/sandbox/server.js";
import type { FigureResult } from "../support/report.js";
import { slashCommand } from "../support/requests.js";
import { startSandbox } from "../support/sandbox.js";
import { percentile, ratio, round } from "../support/stats.js";
import { problemNote, startBot, type World } from "../support/world.js";

/**
 * Figure 10: a payout run of 100 addresses → its quote. RUNS signed `/ops energy` commands, one
 * after the other, each with 100 new addresses on lines of their own (`<address> 65k`), are POSTed
 * to /slack/events of an in-process bot; latency = command sent → its quote (with a Confirm button)
 * at the fake Slack's response_url. The sandbox counts the deny-list calls of each run: one
 * `POST /apiv2/compliance/batch`, no open lookup. Baseline: the same 100 addresses checked by one
 * bare batch request to the sandbox (the floor of the deny-list read), in the same run.
 */
const ADDRESSES = 100;
const RUNS = 10;
const USER = "U0BENCHP";
const CHANNEL = "C10PAY";
const TARGET_MS = 2_000;
const ANSWER_WAIT_MS = 30_000;

const runAddresses = (run: number) =>
  Array.from({ length: ADDRESSES }, (_, i) => tronAddress(`fig10-${run}-${i}`));

async function bareBatch(sandbox: Sandbox, addresses: string[]): Promise<number> {
  const t0 = performance.now();
  const response = await fetch(`${sandbox.url}/apiv2/compliance/batch`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": sandbox.account.apiKey },
    body: JSON.stringify({ addresses }),
  });
  await response.arrayBuffer();
  return performance.now() - t0;
}

interface Run {
  ms: number | null;
  batches: number;
  lookups: number;
  confirm: boolean;
}

async function oneRun(world: World, origin: string, sandbox: Sandbox, run: number): Promise<Run> {
  const addresses = runAddresses(run);
  const mark = sandbox.calls().length;
  const before = world.slack.calls("response_url").length;
  const request = slashCommand(`/ops energy\n${addresses.map((a) => `${a} 65k`).join("\n")}`, {
    channel: CHANNEL,
    user: USER,
    responseUrl: world.slack.responseUrl({ channel: CHANNEL, user: USER }),
  });
  const t0 = Date.now();
  const response = await fetch(`${origin}${request.path}`, {
    method: request.method,
    headers: request.headers,
    ...(request.body !== undefined && { body: request.body }),
  });
  await response.arrayBuffer();
  const deadline = Date.now() + ANSWER_WAIT_MS;
  while (world.slack.calls("response_url").length === before && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5));
  }
  const answer = world.slack.calls("response_url")[before];
  const calls = sandbox.calls().slice(mark);
  return {
    ms: answer === undefined ? null : answer.at - t0,
    batches: calls.filter((c) => c.endpoint === "compliance.batch").length,
    lookups: calls.filter((c) => c.endpoint === "compliance.lookup").length,
    confirm: answer !== undefined && JSON.stringify(answer.params).includes("Confirm "),
  };
}

export async function payoutQuoteFigure(world: World): Promise<FigureResult> {
  const { sandbox, stop } = await startSandbox("fig10");
  try {
    const bare: number[] = [];
    for (let run = 0; run < RUNS; run += 1) bare.push(await bareBatch(sandbox, runAddresses(1000 + run)));
    const bot = await startBot(world, "fig10-payout", sandbox.url, { OPS_OPERATORS: `slack:${USER}` });
    try {
      // One warm-up run (price list and balance read once, as on any running bot).
      await oneRun(world, bot.origin, sandbox, -1);
      const runs: Run[] = [];
      for (let run = 0; run < RUNS; run += 1) runs.push(await oneRun(world, bot.origin, sandbox, run));
      return report(runs, bare, problemNote("the bot", bot.logFile));
    } finally {
      await bot.stop();
    }
  } finally {
    await stop();
  }
}

function report(runs: Run[], bare: number[], problems: string | undefined): FigureResult {
  const times = runs.map((r) => r.ms).filter((ms): ms is number => ms !== null);
  const p50 = round(percentile(times, 50), 1);
  const max = round(percentile(times, 100), 1);
  const bareP50 = round(percentile(bare, 50), 1);
  const oneBatchEach = runs.every((r) => r.batches === 1 && r.lookups === 0);
  const complete = runs.every((r) => r.confirm);
  const notes = [
    `${RUNS} runs of ${ADDRESSES} addresses each (one line per address), one after the other after one warm-up run, signed /ops energy to /slack/events; quote = the answer with a Confirm button at the fake response_url`,
    `deny-list calls per run: batch ${runs.map((r) => r.batches).join(",")}; open lookups ${runs.map((r) => r.lookups).join(",")}; quotes with Confirm ${runs.filter((r) => r.confirm).length}/${RUNS}`,
    `baseline: one bare POST /apiv2/compliance/batch of ${ADDRESSES} addresses to the sandbox, p50 ${bareP50} ms`,
  ];
  if (problems) notes.push(problems);
  return {
    id: "10",
    title: `payout run of ${ADDRESSES} addresses → its quote`,
    measures: [
      {
        name: "command → quote p50",
        value: p50,
        unit: "ms",
        baseline: { name: "bare batch call", value: bareP50 },
        ratio: ratio(p50, bareP50),
        targets: [],
      },
      {
        name: "command → quote max",
        value: max,
        unit: "ms",
        baseline: { name: "bare batch call", value: round(percentile(bare, 100), 1) },
        ratio: ratio(max, round(percentile(bare, 100), 1)),
        targets: [
          {
            text: `≤ ${TARGET_MS} ms, one compliance batch call per run, no lookups`,
            met: max === null ? null : max <= TARGET_MS && oneBatchEach && complete,
          },
        ],
      },
    ],
    notes,
    details: { runs, bare },
  };
}
