/**
 * `npm run bench`: every figure of DESIGN.md's performance table, each beside a baseline measured
 * in the same run, with the ratio and whether the target is met. It starts everything it needs
 * (a private redis-server on a free loopback port, the sandbox service, fake Slack and Telegram
 * APIs, the bot in process through `startApp` or as the built program in a child process) and
 * stops all of it on exit, on error and on Ctrl-C. About 13 minutes on 2 cores (figure 8 alone ~7, 9 ~1.5).
 *
 * What each figure means:
 *  1. slash command → HTTP ack: time from sending a signed `/ops help` to POST /slack/events
 *     until the HTTP answer (Slack's "ack") arrives, p50/p99, at 50 commands/s (open loop).
 *     Baseline: a bare Bolt app on the same HTTPReceiver whose command only acks.
 * 1t. Telegram update → webhook answer: `/help` updates with the secret token POSTed to
 *     /telegram/webhook at 50/s, p50/p99. Baseline: a bare grammY bot's `webhookCallback` whose
 *     `/help` handler does nothing.
 *  2. webhook ingest: signed `delegation.confirmed` webhooks (all new delivery_ids) answered 2xx
 *     per second by POST /webhooks/orders (verified, deduplicated, stored as a BullMQ job), with
 *     32 requests in flight on keep-alive connections for 5 s (the first second not counted).
 *     Baseline: node:http + HMAC verify + one Redis SET NX.
 *  3. webhook accepted → message: from the 2xx of a webhook to its chat.postMessage at the fake
 *     Slack API, p50/p99, at 100 webhooks/s, origins recorded beforehand, spread over 250 channels
 *     so Slack's ~1/s per-channel pacing never applies. Baseline: the bare server of 2 pushing on
 *     a Redis list, and loops that BLPOP, GET the channel and post.
 * 3a. webhook for no known origin → alert channel: 1000 deliveries at 100/s for orders the bot never
 *     placed, all into ALERT_SLACK_CHANNEL (one channel, so ~1 message/s: what waits is coalesced);
 *     p99 from the 2xx to the message naming the order, each posted exactly once. Baseline: 3's bare.
 * 3b. the same for recorded origins, round-robin over 5 channels; and how close to the pace the gaps
 *     between one channel's posts are (p99 late, earliest; the notify test asserts slots, not times).
 * 3c. burst: 2000 deliveries at 200/s into 5 channels: first webhook → last post, and how many were
 *     posted exactly once. Baseline: 3's bare pipeline (unpaced) with the same load.
 *  4. pending screenings: N poll-screening jobs for orders still pending in the sandbox (which
 *     enforces the service's limits, 5/s and 150/min for AML): the 429s the sandbox answered, and
 *     the time to the last result in chat vs the floor the limits allow (the earliest time N reads
 *     can be made, given when each order becomes ready). N = 200 by default (1000 would take ~7
 *     minutes; `--screenings=1000` runs it); 200 reads still cross the 150/min window.
 *  5. memory: RSS (VmRSS from /proc) of the built bot in a child process with Slack and Telegram on,
 *     idle, then while 10 000 orders are pending (10 000 due poll jobs for pending screenings and
 *     10 000 recorded order origins); the delta says whether it stays flat. Baseline: a bare Node
 *     HTTP server's RSS.
 *  7. quote → Confirm button: after 100 energy orders quoted and confirmed, signed `/ops energy`
 *     commands for new addresses at 20/s over 20 channels; command sent → its quote with a Confirm
 *     button at the fake response_url, p50/p99; the 429s and userinfo reads meanwhile. Baseline: a
 *     bare Bolt app answering a canned quote with buttons on the response_url.
 *  8. memory and command path with energy orders pending: RSS of the built bot (child process) idle,
 *     with 100 orders pending (after 2000 unconfirmed warm-up quotes), then after 10 000 `/ops
 *     energy` quotes were each confirmed by a signed click and left pending (the sandbox holds their
 *     delivery for an hour); flat = at most +15 % over 100 pending. Then `/ops energy` quotes at
 *     20/s, 3 rounds of 400, in turns with a twin bot alive at the same time with 100 pending: ack
 *     and quote p99, the median of the rounds' (≤ 1.5× the twin's), and per quote the bot's CPU and
 *     Redis commands (≤ 1.5×: no work per pending order); what each bot did alone for 10 s before.
 *     `--orders=N` runs fewer.
 *  6. start-up: from spawning `npm start` (the program built at install; Slack + Telegram + Redis) to the first 200
 *     from /healthz, 3 runs. Baseline: a bare Node HTTP server's spawn → 200.
 *  9. watchlists: 100 000 addresses added by 200 signed `/ops watch add` commands of 500, one per
 *     channel (first sent → last answered; baseline: the same 200 deny-list batch calls, bare); a
 *     revision change moves one address per channel into usdt_frozen: time to the last alert (≤ 60
 *     s), batch calls (≤ 110), each change posted once, 429s, and peak RSS (< 300 MB) against the
 *     same bot idle. Baseline: the 100 batch calls of 1000 by the client alone. Then one `watch add`
 *     of 10 000 (≤ 5 s; baseline its 10 bare batch calls) and `watch list` of a page (≤ 1 s).
 * 10. payout run → quote: 10 signed `/ops energy` commands of 100 addresses each (one per line),
 *     one after the other; command sent → its quote with Confirm at the fake response_url, and the
 *     deny-list calls of each run (one batch, no lookup). Baseline: one bare batch call of 100.
 * 11. standing orders: 20 standing orders created for the next whole minute on two instances
 *     sharing one Redis; nothing drives them: the lag from the minute to each run's order at the
 *     sandbox (target: within 5 s), and one order per standing order. Baseline: a bare BullMQ
 *     delayed job due at the same minute.
 * 12. chart render: data → SVG (ECharts) → PNG 1200×600 (resvg) in process, the three charts in turn,
 *     p50/p99 of 90 renders after a warm-up. Baseline: resvg alone on a one-rectangle, one-line SVG.
 * 14. single watch adds: 2000 signed `/ops watch add <address>` commands of one address each, sent
 *     at 100/s round-robin over 20 channels to the built bot (child process, the sandbox enforcing the
 *     open lookup's 10/s and 300/min): first sent → last answered (target: the 20 s pace + 10 s),
 *     the deny-list calls and the 429s. Baseline: the same 2000 verdicts as single-address batch
 *     calls by the client alone at 100/s.
 * 13. Redis failover: on a real Sentinel group and a real 3-master Cluster, the master holding the
 *     bot's queues killed during a webhook burst and a stream of commands: kill → commands answered
 *     again, webhook answers refused vs accepted, deliveries acknowledged but lost or posted twice.
 * 15. AML cases: a finished high-risk screening → its case message at the fake Slack's alert channel,
 *     p50/p99 (target ≤ 2 s), baseline a bare chat.postMessage; `certificate <address>` through the
 *     core → PDF, p50/p99 (target ≤ 500 ms), baseline pdf-lib building a one-line PDF. 20 cases and
 *     60 certificates by default; `--cases=N` runs N cases and 3N certificates.
 *
 * 16. agents over MCP: the SDK's client over HTTP; get_prices and check_addresses of 100, p99 at 20
 *     calls/s (baseline: a bare SDK server with a canned tool), and request_energy → its quote posted
 *     in the agents' channel, p99, over agents that each keep within their 3 requests awaiting a
 *     person (baseline: a bare SDK tool that posts with chat.postMessage). `--mcp-calls=N` (default
 *     200 reads of each kind; requests: a tenth, at least 5).
 *
 * 17. audit export: 100 000 ledger entries over 10 days → the CSV file, in a process of its own
 *     (RSS is the process's: in the bench's it would read the earlier figures' heap): time and RSS
 *     before, at its peak and after (flat: the peak grows by far less than the file). Baseline: the
 *     same rows, already in memory, written with plain fs. Also the rate of real ledger appends.
 *
 * Usage: npm run bench [-- <json file>] [--only=1,2] [--screenings=N] [--orders=N] [--cases=N]
 *   [--mcp-calls=N] [--no-build] [--ingest-built=cold|warm]
 * `--ingest-built`: figure 2 against the built program in a child process (`npm start`'s node and
 *   flags), a fresh one per round; `cold` loads it as soon as /healthz answers, `warm` after 5 s of
 *   uncounted load (a fresh process spends its first seconds compiling the hot path).
 * stdout: the table, notes, then one JSON object on the last line (also written to <json file>).
 * Progress goes to stderr.
 */
import { fileURLToPath } from "node:url";
import { auditExportFigure } from "./figures/audit-export.js";
import { casesFigure } from "./figures/cases.js";
import { chartRenderFigure } from "./figures/chart-render.js";
import { failoverFigure } from "./figures/failover.js";
import { ingestFigure } from "./figures/ingest.js";
import { mcpAgentsFigure } from "./figures/mcp-agents.js";
import { memoryFigure } from "./figures/memory.js";
import { notifyLatencyFigure } from "./figures/notify-latency.js";
import { burstFigure, knownOriginFigure, unknownOriginFigure } from "./figures/notify-routing.js";
import { ordersMemoryFigure } from "./figures/orders-memory.js";
import { payoutQuoteFigure } from "./figures/payout-quote.js";
import { quoteLatencyFigure } from "./figures/quote-latency.js";
import { screeningsFigure } from "./figures/screenings.js";
import { singleAddsFigure } from "./figures/single-adds.js";
import { slashAckFigure, telegramAckFigure } from "./figures/slash-ack.js";
import { standingOrdersFigure } from "./figures/standing-orders.js";
import { startupFigure } from "./figures/startup.js";
import { watchlistsFigure } from "./figures/watchlists.js";
import { ensureBuilt } from "./support/build.js";
import { installCleanupHooks, runCleanups } from "./support/cleanup.js";
import { type FigureResult, renderNotes, renderTable, summary, writeJson } from "./support/report.js";
import { startSandbox } from "./support/sandbox.js";
import { startWorld, type World } from "./support/world.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
/** Everything is bounded on its own; this only stops a bench that hangs anyway. */
const WATCHDOG_MS = 25 * 60_000;

interface Args {
  jsonFile?: string;
  only?: Set<string>;
  screenings: number;
  orders: number;
  cases: number;
  mcpCalls: number;
  build: boolean;
  /** Figure 2 against the built program in a child process (`warm`: after an uncounted warm-up load). */
  ingestBuilt?: "cold" | "warm";
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { screenings: 200, orders: 10_000, cases: 20, mcpCalls: 200, build: true };
  for (const arg of argv) {
    if (arg.startsWith("--only=")) args.only = new Set(arg.slice(7).split(","));
    else if (arg.startsWith("--screenings=")) args.screenings = Number(arg.slice(13));
    else if (arg.startsWith("--orders=")) args.orders = Number(arg.slice(9));
    else if (arg.startsWith("--cases=")) args.cases = Number(arg.slice(8));
    else if (arg.startsWith("--mcp-calls=")) args.mcpCalls = Number(arg.slice(12));
    else if (arg === "--no-build") args.build = false;
    else if (arg === "--ingest-built=cold" || arg === "--ingest-built=warm")
      args.ingestBuilt = arg.endsWith("cold") ? "cold" : "warm";
    else if (!arg.startsWith("--")) args.jsonFile = arg;
    else throw new Error(`unknown option ${arg}`);
  }
  if (!Number.isInteger(args.screenings) || args.screenings < 1 || args.screenings > 1000) {
    throw new Error("--screenings must be a whole number from 1 to 1000");
  }
  if (!Number.isInteger(args.orders) || args.orders < 1 || args.orders > 10_000) {
    throw new Error("--orders must be a whole number from 1 to 10000");
  }
  if (!Number.isInteger(args.cases) || args.cases < 1 || args.cases > 200) {
    throw new Error("--cases must be a whole number from 1 to 200");
  }
  if (!Number.isInteger(args.mcpCalls) || args.mcpCalls < 5 || args.mcpCalls > 2000) {
    throw new Error("--mcp-calls must be a whole number from 5 to 2000");
  }
  return args;
}

type Figure = { id: string; title: string; run: (world: World) => Promise<FigureResult> };

function figures(args: Args, build: { note: string }): Figure[] {
  // Figures 1–3 share one sandbox (no AML call); 4 and 5 get their own, so rate windows start empty.
  const withSandbox = async (name: string, run: (url: string) => Promise<FigureResult>) => {
    const { sandbox, stop } = await startSandbox(name);
    try {
      return await run(sandbox.url);
    } finally {
      await stop();
    }
  };
  const all: Figure[] = [
    { id: "6", title: "start → /healthz 200", run: (w) => startupFigure(w, build.note) },
    { id: "5", title: "memory", run: (w) => memoryFigure(w) },
    {
      id: "1",
      title: "slash command → ack",
      run: (w) => withSandbox("fig1", (url) => slashAckFigure(w, url)),
    },
    {
      id: "1t",
      title: "Telegram update → webhook answer",
      run: (w) => withSandbox("fig1t", (url) => telegramAckFigure(w, url)),
    },
    {
      id: "2",
      title: "webhook ingest",
      run: (w) => withSandbox("fig2", (url) => ingestFigure(w, url, args.ingestBuilt)),
    },
    {
      id: "3",
      title: "webhook → message",
      run: (w) => withSandbox("fig3", (url) => notifyLatencyFigure(w, url)),
    },
    {
      id: "3a",
      title: "webhook, no known origin → alert channel",
      run: (w) => withSandbox("fig3a", (url) => unknownOriginFigure(w, url)),
    },
    {
      id: "3b",
      title: "webhook, known origin → few channels",
      run: (w) => withSandbox("fig3b", (url) => knownOriginFigure(w, url)),
    },
    { id: "3c", title: "webhook burst", run: (w) => withSandbox("fig3c", (url) => burstFigure(w, url)) },
    { id: "4", title: "pending screenings", run: (w) => screeningsFigure(w, args.screenings) },
    { id: "7", title: "quote → Confirm", run: (w) => quoteLatencyFigure(w) },
    { id: "8", title: "memory, energy orders pending", run: (w) => ordersMemoryFigure(w, args.orders) },
    { id: "9", title: "watchlists", run: (w) => watchlistsFigure(w) },
    { id: "10", title: "payout run → quote", run: (w) => payoutQuoteFigure(w) },
    { id: "14", title: "single watch adds", run: (w) => singleAddsFigure(w) },
    { id: "11", title: "standing order run → its minute", run: (w) => standingOrdersFigure(w) },
    { id: "12", title: "chart render", run: () => chartRenderFigure() },
    { id: "13", title: "Redis failover", run: (w) => failoverFigure(w) },
    { id: "15", title: "AML cases and certificates", run: (w) => casesFigure(w, args.cases, args.cases * 3) },
    {
      id: "16",
      title: "agents over MCP",
      run: (w) => mcpAgentsFigure(w, args.mcpCalls, Math.max(5, Math.round(args.mcpCalls / 10))),
    },
    { id: "17", title: "audit export of 100 000 rows", run: (w) => auditExportFigure(w) },
  ];
  return all.filter((f) => !args.only || args.only.has(f.id));
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  installCleanupHooks();
  const watchdog = setTimeout(() => {
    process.stderr.write("bench: watchdog: still running after 25 minutes; stopping\n");
    void runCleanups().finally(() => process.exit(2));
  }, WATCHDOG_MS);
  watchdog.unref();
  const started = performance.now();
  const results: FigureResult[] = [];
  try {
    const needsBuild =
      !args.only ||
      args.ingestBuilt !== undefined ||
      ["1t", "5", "6", "8", "9", "14"].some((id) => args.only?.has(id));
    const build = needsBuild ? ensureBuilt(REPO, args.build) : { note: "not needed" };
    const world = await startWorld(REPO);
    process.stderr.write(`bench: logs in ${world.logDir}\n`);
    for (const figure of figures(args, build)) {
      process.stderr.write(`bench: figure ${figure.id} (${figure.title})…\n`);
      const t0 = performance.now();
      results.push(await runFigure(figure, world));
      process.stderr.write(
        `bench: figure ${figure.id} done in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
      );
    }
    const order = ["1", "2", "3", "3a", "3b", "3c", "4", "5", "6", "7", "8", "9", "10", "14"];
    results.sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
    const out = summary(results, {
      durationS: Math.round((performance.now() - started) / 100) / 10,
      screenings: args.screenings,
      build: build.note,
      logs: world.logDir,
    });
    process.stdout.write(`${renderTable(results)}\n\nNotes:\n${renderNotes(results)}\n\n`);
    if (args.jsonFile) writeJson(args.jsonFile, out);
    process.stdout.write(`${JSON.stringify(out)}\n`);
    return 0;
  } finally {
    clearTimeout(watchdog);
    await runCleanups();
  }
}

async function runFigure(figure: Figure, world: World): Promise<FigureResult> {
  try {
    return await figure.run(world);
  } catch (error) {
    const message = (error as Error)?.message ?? String(error);
    process.stderr.write(`bench: figure ${figure.id} failed: ${(error as Error)?.stack ?? message}\n`);
    return { id: figure.id, title: figure.title, measures: [], notes: [], error: message };
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench: ${(error as Error)?.stack ?? String(error)}\n`);
    void runCleanups().finally(() => process.exit(1));
  },
);
