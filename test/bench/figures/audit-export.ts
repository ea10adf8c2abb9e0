import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Redis } from "ioredis";
import { loadConfig } from "../../../src/config/load-config.js";
import { hashOf, LEDGER_HEADER, rowOf } from "../../../src/core/ledger/csv-row.js";
import { GENESIS_HASH, type LedgerEntry } from "../../../src/core/ledger/entry.js";
import { writeExport } from "../../../src/core/ledger/export.js";
import { appendToLedger } from "../../../src/core/ledger/ledger.js";
import { createRedisStore } from "../../../src/store/index.js";
import { inOwnProcess } from "../support/own-process.js";
import type { FigureResult } from "../support/report.js";
import { ratio, round } from "../support/stats.js";
import type { World } from "../support/world.js";

/**
 * Figure 17: `audit export` of 100 000 ledger entries (10 UTC days of 10 000) from Redis to the
 * contract's CSV file, in a process of its own (`audit-export-main.ts`: RSS is the whole process's,
 * so after other figures in the bench's process it would read their heap): wall time, and RSS
 * before, at its peak (sampled every 20 ms) and after. Flat memory means the peak grows by far
 * less than the file's size. Baseline: the same rows, already rendered and in memory, written with
 * plain `fs` (the floor the disk sets).
 * Also: the rate of real appends (`appendToLedger`, one Lua step each) over 2000 entries.
 */
const ROWS = 100_000;
const DAYS = 10;
const APPENDS = 2_000;
const DAY_MS = 86_400_000;
const START = Date.parse("2026-10-01T00:00:00Z");

const rssMb = (): number => process.memoryUsage().rss / 1_048_576;
const heapMb = (): number => process.memoryUsage().heapUsed / 1_048_576;

function entryAt(seq: number, prevHash: string): LedgerEntry {
  const at = new Date(START + Math.floor(((seq - 1) * DAYS * DAY_MS) / ROWS)).toISOString();
  const chained = {
    seq,
    at,
    kind: seq % 7 === 0 ? ("host_cycle" as const) : ("energy" as const),
    actor: seq % 7 === 0 ? "host:TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t" : `slack:U0OPER${seq % 10}`,
    requester: `slack:U0OPER${seq % 10}`,
    address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
    amountSun: 3_250_000 + (seq % 1000),
    result: "ordered" as const,
    orderIds: [`${900_000 + seq}`],
    confirmationId: `c${seq}`,
    detail: `paid ${3.25 + (seq % 1000) / 1e6} TRX: 65000 energy delegated`,
    prevHash,
  };
  return { ...chained, energy: 65_000, hash: hashOf(chained) };
}

/**
 * Writes the chain straight into the day lists (what 100 000 appends leave behind), in batches;
 * answers the CSV file's size, and its rows when `keep` (the baseline writes them from memory;
 * before the export nothing is kept, so its RSS "before" is not the fill's).
 */
async function fill(redis: Redis, prefix: string, keep: boolean): Promise<{ rows: string[]; bytes: number }> {
  let prev = GENESIS_HASH;
  let batch = redis.pipeline();
  const rows: string[] = [];
  let bytes = LEDGER_HEADER.length + 1;
  for (let seq = 1; seq <= ROWS; seq++) {
    const entry = entryAt(seq, prev);
    prev = entry.hash;
    batch.rpush(`${prefix}ledger:day:${entry.at.slice(0, 10)}`, JSON.stringify(entry));
    const row = rowOf(entry);
    bytes += row.length + 1;
    if (keep) rows.push(row);
    if (seq % 5_000 === 0) {
      await batch.exec();
      batch = redis.pipeline();
    }
  }
  await batch.exec();
  return { rows, bytes };
}

/**
 * The figure in child processes of its own: one fills Redis, a fresh one measures (so its RSS
 * "before" holds nothing of the fill); the result as it wrote it.
 */
export async function auditExportFigure(world: World): Promise<FigureResult> {
  const main = new URL("./audit-export-main.ts", import.meta.url);
  const prefix = `bench-audit-${process.pid}:`;
  const { bytes } = await inOwnProcess<{ bytes: number }>(world, "fig17-fill", main, [
    "fill",
    world.redis.url,
    prefix,
  ]);
  return inOwnProcess(world, "fig17-audit-export", main, ["measure", world.redis.url, prefix, String(bytes)]);
}

/** The day lists of the export's 100 000 entries under `prefix`; the CSV file's size. */
export async function fillAuditLedger(url: string, prefix: string): Promise<{ bytes: number }> {
  const redis = new Redis(url);
  try {
    return { bytes: (await fill(redis, prefix, false)).bytes };
  } finally {
    await redis.quit();
  }
}

/** The measurement itself, in the process that runs it (`audit-export-main.ts`), on the filled lists. */
export async function measureAuditExport(
  url: string,
  prefix: string,
  fileBytes: number,
): Promise<FigureResult> {
  const redis = new Redis(url);
  const store = createRedisStore({ redis, prefix });
  const settings = loadConfig({}).core;
  const deps = {
    store,
    now: () => Date.now(),
    settings: { ...settings, ledger: { retentionDays: 400 } },
  } as never;
  const dir = await mkdtemp(join(tmpdir(), "bench-audit-"));
  try {
    const t0 = performance.now();
    for (let i = 0; i < APPENDS; i++) {
      await appendToLedger(deps, `bench-${i}`, {
        kind: "energy",
        actor: "slack:U0BENCH",
        requester: "slack:U0BENCH",
        address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
        amountSun: 1,
        result: "ordered",
        orderIds: [],
        confirmationId: `b${i}`,
        detail: "",
      });
    }
    const appendsPerS = (APPENDS * 1000) / (performance.now() - t0);
    // The appends above went to today's list, not the filled days the export reads.
    global.gc?.();
    const before = rssMb();
    const heapBefore = heapMb();
    let peak = before;
    let heapPeak = heapBefore;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb());
      heapPeak = Math.max(heapPeak, heapMb());
    }, 20);
    const e0 = performance.now();
    const written = await writeExport(store, "2026-10-01", "2026-10-10");
    const exportMs = performance.now() - e0;
    clearInterval(sampler);
    peak = Math.max(peak, rssMb());
    const after = rssMb();
    global.gc?.();
    const heapRetained = heapMb() - heapBefore;

    const { rows: again } = await fill(redis, `${prefix}again:`, true);
    const b0 = performance.now();
    await pipeline(
      Readable.from(
        (function* () {
          yield `${LEDGER_HEADER}\n`;
          for (let i = 0; i < again.length; i += 500) yield `${again.slice(i, i + 500).join("\n")}\n`;
        })(),
      ),
      createWriteStream(join(dir, "bare.csv")),
    );
    const bareMs = performance.now() - b0;
    const growth = peak - before;
    return {
      id: "17",
      title: "audit export of 100 000 rows",
      measures: [
        {
          name: `audit export ${ROWS} rows → CSV file`,
          value: round(exportMs, 0),
          unit: "ms",
          baseline: { name: "the same rows, in memory, plain fs", value: round(bareMs, 0) },
          ratio: ratio(exportMs, bareMs),
          targets: [{ text: `all ${ROWS} rows written`, met: written.rows === ROWS }],
        },
        {
          name: "RSS growth at the export's peak",
          value: round(growth, 1),
          unit: "MB",
          baseline: { name: "the file's size", value: round(fileBytes / 1_048_576, 1) },
          ratio: ratio(growth, fileBytes / 1_048_576),
          targets: [
            { text: "flat: peak growth < a quarter of the file", met: growth < fileBytes / 1_048_576 / 4 },
          ],
        },
        {
          name: "V8 heap kept after the export (after a GC)",
          value: round(heapRetained, 1),
          unit: "MB",
          baseline: {
            name: "heap in use at its peak, over the one before",
            value: round(heapPeak - heapBefore, 1),
          },
          ratio: null,
          targets: [{ text: "< 1 MB: no row kept", met: heapRetained < 1 }],
        },
        {
          name: "ledger appends (one Lua step each), sequential",
          value: round(appendsPerS, 0),
          unit: "/s",
          targets: [],
        },
      ],
      notes: [
        `RSS before ${round(before, 1)} MB, peak ${round(peak, 1)} MB, after ${round(after, 1)} MB; V8 heap in use ${round(heapBefore, 1)} MB before, at most ${round(heapPeak, 1)} MB, ${round(heapRetained, 1)} MB more after a GC; file ${round(written.sizeBytes / 1_048_576, 1)} MB, ${written.rows} rows over ${DAYS} days.`,
      ],
      details: { rows: written.rows, sizeBytes: written.sizeBytes, before, peak, after, appendsPerS },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
    const keys = await redis.keys(`${prefix}*`);
    for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
    await redis.quit();
  }
}
