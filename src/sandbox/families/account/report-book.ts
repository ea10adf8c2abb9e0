import type { SandboxAccount } from "../../accounts.js";
import type { SandboxContext } from "../../context.js";
import { isoTime, upperId } from "./common.js";
import { type Artifact, buildArtifact } from "./report-artifacts.js";
import type { ParsedStatement } from "./report-request.js";

/**
 * Statement orders and their build: queued → running → waiting_external → done (or error), each
 * step after a third of the build time; done turns expired 30 days after the file was made.
 */
export type ReportStatus = "queued" | "running" | "waiting_external" | "done" | "error" | "expired";

const FILE_LIFETIME_MS = 30 * 86_400_000;

export interface ReportOrder {
  order_no: string;
  userId: number;
  request: ParsedStatement;
  idempotencyKey?: string;
  /** Identity of the body, to tell a repeat from a conflicting reuse of an identifier. */
  fingerprint: string;
  status: Exclude<ReportStatus, "expired">;
  progress_pct: number;
  created_at: number;
  finished_at?: number;
  expires_at?: number;
  artifact?: Artifact;
  failure?: { error_code: string; error_message: string };
  /** Set at creation when the control asked for a failing build. */
  plannedFailure?: { error_code: string; error_message: string };
}

export interface ReportBookOptions {
  /** Time from queued to done (default 1.5 s); each of the three steps takes a third. */
  buildMs?: number;
}

export const fingerprintOf = (r: ParsedStatement): string =>
  JSON.stringify([r.client_request_id, r.address, r.token_id, r.date_from, r.date_to, r.format]);

export function createReportBook(ctx: SandboxContext, options: ReportBookOptions = {}) {
  const orders = new Map<string, ReportOrder>();
  let buildMs = options.buildMs ?? 1_500;
  let nextFailure: ReportOrder["plannedFailure"];

  const statusOf = (order: ReportOrder): ReportStatus =>
    order.status === "done" && order.expires_at !== undefined && ctx.now() >= order.expires_at
      ? "expired"
      : order.status;

  function view(order: ReportOrder) {
    const r = order.request;
    const status = statusOf(order);
    return {
      order_no: order.order_no,
      client_request_id: r.client_request_id,
      type: "statement",
      status,
      quota_bucket: "statement_standard",
      progress_pct: order.progress_pct,
      address: r.address,
      token_id: r.token_id,
      date_from: r.date_from,
      date_to: r.date_to,
      format: r.format,
      created_at: isoTime(order.created_at),
      finished_at: order.finished_at === undefined ? null : isoTime(order.finished_at),
      expires_at: order.expires_at === undefined ? null : isoTime(order.expires_at),
      artifact_sha256: order.artifact?.sha256 ?? null,
      artifact_size: order.artifact?.size ?? null,
      download_url: order.status === "done" ? `/apiv2/reports/${order.order_no}/download` : null,
      ...(order.failure ?? {}),
    };
  }

  function finish(order: ReportOrder, account: SandboxAccount | undefined): void {
    const at = ctx.now();
    order.finished_at = at;
    if (order.plannedFailure) {
      order.status = "error";
      order.failure = order.plannedFailure;
      return;
    }
    order.artifact = buildArtifact(order.request);
    order.status = "done";
    order.progress_pct = 100;
    order.expires_at = at + FILE_LIFETIME_MS;
    if (!account) return;
    const v = view(order);
    ctx.outbound.reportEvent(account, {
      event: "report.ready",
      order_id: order.order_no,
      order_type: "statement",
      client_request_id: v.client_request_id,
      status: "done",
      format: v.format,
      download_url: v.download_url,
      expires_at: v.expires_at,
      artifact: { sha256: v.artifact_sha256, size_bytes: v.artifact_size },
      confirmed_at: isoTime(at),
    });
  }

  function schedule(order: ReportOrder): void {
    const step = Math.max(0, Math.round(buildMs / 3));
    ctx.timers.after(step, () => {
      order.status = "running";
      order.progress_pct = 10;
      ctx.timers.after(step, () => {
        order.status = "waiting_external";
        order.progress_pct = 60;
        ctx.timers.after(step, () => finish(order, ctx.accounts.byUserId(order.userId)));
      });
    });
  }

  function create(account: SandboxAccount, request: ParsedStatement, idempotencyKey?: string): ReportOrder {
    const order: ReportOrder = {
      order_no: `REP${upperId(12)}`,
      userId: account.userId,
      request,
      idempotencyKey,
      fingerprint: fingerprintOf(request),
      status: "queued",
      progress_pct: 0,
      created_at: ctx.now(),
      plannedFailure: nextFailure,
    };
    nextFailure = undefined;
    orders.set(order.order_no, order);
    schedule(order);
    return order;
  }

  /** The existing order an identifier points at (key first, then client_request_id). */
  function findExisting(userId: number, clientRequestId: string, key?: string): ReportOrder[] {
    const mine = [...orders.values()].filter((o) => o.userId === userId);
    const byKey = key ? mine.find((o) => o.idempotencyKey === key) : undefined;
    const byId = mine.find((o) => o.request.client_request_id === clientRequestId);
    return [byKey, byId].filter((o): o is ReportOrder => o !== undefined);
  }

  const find = (userId: number, orderNo: string): ReportOrder | undefined => {
    const order = orders.get(orderNo);
    return order?.userId === userId ? order : undefined;
  };

  const must = (orderNo: string): ReportOrder => {
    const order = orders.get(orderNo);
    if (!order) throw new Error(`no report ${orderNo}`);
    return order;
  };

  const control = {
    /** Time from queued to done for orders created from now on. */
    setBuildTime(ms: number): void {
      buildMs = ms;
    },
    /** The next order created ends in `error` instead of `done`. */
    failNextBuild(
      error_code = "EXTERNAL_SOURCE_FAILED",
      error_message = "the block explorer did not answer",
    ): void {
      nextFailure = { error_code, error_message };
    },
    /** Makes a finished file expire now (download then answers 410). */
    expire(orderNo: string): void {
      must(orderNo).expires_at = ctx.now();
    },
    /** Flips one byte of the stored file, so it no longer matches `artifact_sha256`. */
    corrupt(orderNo: string): void {
      const artifact = must(orderNo).artifact;
      if (!artifact) throw new Error(`report ${orderNo} has no file yet`);
      const bytes = Buffer.from(artifact.bytes);
      bytes[bytes.length - 1] = (bytes.at(-1) ?? 0) ^ 0xff;
      artifact.bytes = bytes;
    },
    order: (orderNo: string) => orders.get(orderNo),
    all: () => [...orders.values()],
  };

  return { create, findExisting, find, view, statusOf, control };
}

export type ReportBook = ReturnType<typeof createReportBook>;
