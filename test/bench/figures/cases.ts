import { PDFDocument, StandardFonts } from "pdf-lib";
import { screeningFound } from "../../../src/core/cases/index.js";
import type { Invocation } from "../../../src/core/invocation.js";
import { tronAddressFrom } from "../../../src/sandbox/families/screening/demo-addresses.js";
import type { ScreeningOrder } from "../../../src/service/screening.js";
import { FAKE_SLACK_BOT_TOKEN } from "../../fakes/slack-api.js";
import type { FigureResult } from "../support/report.js";
import { startSandbox } from "../support/sandbox.js";
import { median, percentile, ratio, round } from "../support/stats.js";
import { problemNote, startBot, type World } from "../support/world.js";

/**
 * Figure 14: a screening result → its AML case message in the alert channel. A full bot through
 * `startApp` (Redis, Slack against the fake Web API, ALERT_SLACK_CHANNEL set); each sample hands a
 * finished high-risk screening to the cases (`screeningFound`, what `screen` and the poll job call)
 * and waits for the chat.postMessage naming its address at the fake. One alert channel is paced
 * about one message a second, so the samples are spaced by more than that: each measures the path
 * (claim, case record, notify queue, adapter, Slack call), not the pacing. Baseline: one bare
 * chat.postMessage to the same fake from the bench process.
 *
 * Figure 15: `certificate <address>` through the core, p99: the evidence read, the deny-list lookup
 * at the sandbox, the case, the HMAC code and the PDF (pdf-lib + DejaVu Sans embedded, subset).
 * Baseline: pdf-lib building a one-line A4 PDF with a standard font.
 */
const ALERTS = "C0CASEBENCH";
const CASE_TARGET_MS = 2_000;
const CERT_TARGET_MS = 500;
const SPACING_MS = 1_200;

function highRisk(address: string, id: string): ScreeningOrder {
  const at = new Date().toISOString();
  return {
    schema_version: 2,
    order: {
      client_order_id: id,
      status: "completed",
      api_version: "2",
      cache_hit: false,
      created_at: at,
      started_at: at,
      completed_at: at,
    },
    request: { address, network: "trx", provider: "provider_a" },
    check: { provider: "provider_a", provider_check_id: null, checked_at: at, status: "completed" },
    risk: {
      score: "8.4",
      scale: { min: 0, max: 10 },
      level: "high",
      level_source: "computed",
      provider_level: null,
      policy: "service-risk-v1",
      by_direction: { source: null, destination: null },
    },
    sanctions: { self: false, self_entities: [], exposure: {}, items: [], related: [] },
    exposure: [
      {
        category: "mixer",
        share_fraction: "0.4",
        direction: "source",
        hops: 1,
        is_screened_address: false,
        entities: [],
      },
    ],
    rawSha256: "f".repeat(64),
  } as unknown as ScreeningOrder;
}

async function until<T>(probe: () => T | undefined, timeoutMs: number): Promise<T | undefined> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined || performance.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 2));
  }
}

async function barePost(world: World): Promise<number> {
  const t0 = performance.now();
  const response = await fetch(`${world.slack.apiUrl}chat.postMessage`, {
    method: "POST",
    headers: { authorization: `Bearer ${FAKE_SLACK_BOT_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ channel: "C0BAREBENCH", text: "bare" }),
  });
  await response.text();
  return performance.now() - t0;
}

async function barePdf(): Promise<number> {
  const t0 = performance.now();
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([595.28, 841.89]).drawText("AML certificate", { x: 50, y: 780, size: 10, font });
  await doc.save();
  return performance.now() - t0;
}

export async function casesFigure(world: World, samples = 20, certificates = 60): Promise<FigureResult> {
  const { sandbox, stop } = await startSandbox("fig15", { enforceRateLimits: false });
  const bot = await startBot(world, "fig15", sandbox.url, { ALERT_SLACK_CHANNEL: ALERTS });
  const caseMs: number[] = [];
  const bareMs: number[] = [];
  const certMs: number[] = [];
  const bareCertMs: number[] = [];
  const addresses: string[] = [];
  let missing = 0;
  try {
    const conversation = { platform: "slack", id: "C0SCREENBENCH" } as const;
    for (let i = 0; i < samples; i++) {
      const address = tronAddressFrom(`bench-case-${process.pid}-${i}`);
      addresses.push(address);
      const t0 = performance.now();
      await screeningFound(bot.app.deps, highRisk(address, `Abench${process.pid}${i}`), {
        askedBy: "bench",
        conversation,
      });
      const seen = await until(
        () => world.slack.channelMessages(ALERTS).find((m) => JSON.stringify(m.blocks).includes(address)),
        10_000,
      );
      if (seen === undefined) missing += 1;
      else caseMs.push(performance.now() - t0);
      bareMs.push(await barePost(world));
      await new Promise((r) => setTimeout(r, SPACING_MS));
    }
    for (let i = 0; i < certificates; i++) {
      const invocation: Invocation = {
        kind: "command",
        actor: { platform: "slack", userId: "U0BENCH" },
        conversation,
        text: `certificate ${addresses[i % addresses.length]}`,
      };
      const t0 = performance.now();
      const reply = await bot.app.core.handle(invocation);
      const took = performance.now() - t0;
      if (!reply.blocks.some((b) => b.type === "file")) throw new Error(`no PDF: ${reply.summary}`);
      if (i >= 3) certMs.push(took);
      const bare = await barePdf();
      if (i >= 3) bareCertMs.push(bare);
    }
  } finally {
    await bot.stop();
    await stop();
  }
  const caseP99 = round(percentile(caseMs, 99), 1);
  const certP99 = round(percentile(certMs, 99), 1);
  const problem = problemNote("fig15 bot", bot.logFile);
  return {
    id: "15",
    title: "AML cases and certificates",
    measures: [
      {
        name: "screening result → case message, p99",
        value: caseP99,
        unit: "ms",
        baseline: { name: "bare chat.postMessage to the fake", value: round(percentile(bareMs, 99), 1) },
        ratio: ratio(percentile(caseMs, 99), percentile(bareMs, 99)),
        targets: [
          {
            text: `≤ ${CASE_TARGET_MS} ms, none missing`,
            met: caseP99 === null ? null : caseP99 <= CASE_TARGET_MS && missing === 0,
          },
        ],
      },
      {
        name: "screening result → case message, p50",
        value: round(median(caseMs), 1),
        unit: "ms",
        baseline: { name: "bare chat.postMessage to the fake", value: round(median(bareMs), 1) },
        ratio: ratio(median(caseMs), median(bareMs)),
        targets: [],
      },
      {
        name: "certificate build (command → PDF), p99",
        value: certP99,
        unit: "ms",
        baseline: { name: "pdf-lib one-line PDF", value: round(percentile(bareCertMs, 99), 1) },
        ratio: ratio(percentile(certMs, 99), percentile(bareCertMs, 99)),
        targets: [
          { text: `p99 ≤ ${CERT_TARGET_MS} ms`, met: certP99 === null ? null : certP99 <= CERT_TARGET_MS },
        ],
      },
      {
        name: "certificate build, p50",
        value: round(median(certMs), 1),
        unit: "ms",
        baseline: { name: "pdf-lib one-line PDF", value: round(median(bareCertMs), 1) },
        ratio: ratio(median(certMs), median(bareCertMs)),
        targets: [],
      },
    ],
    notes: [
      `${samples} high-risk screenings handed to the cases one at a time, ${SPACING_MS} ms apart (the alert channel is paced ~1/s); ${missing} case messages missing`,
      `${certificates} certificates of those addresses through core.handle (first 3 not counted), each beside a bare pdf-lib build; the sandbox's rate limits off`,
      ...(problem ? [problem] : []),
    ],
    details: {
      caseMs: caseMs.map((s) => round(s, 1)),
      bareMs: bareMs.map((s) => round(s, 1)),
      certMs: certMs.map((s) => round(s, 1)),
      bareCertMs: bareCertMs.map((s) => round(s, 1)),
    },
  };
}
