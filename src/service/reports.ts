import { createHash } from "node:crypto";
import { z } from "zod";
import { parseReply } from "./decode-error.js";
import { ServiceError } from "./errors.js";
import type { Transport } from "./transport.js";

/**
 * Statement reports: order a file, read its status, download it. Errors arrive as ServiceError:
 * 400 (address checksum), 401, 402 (code 1004), 403 (code 1005), 404, 409 (IDEMPOTENCY_CONFLICT),
 * 410 (file expired), 422 (details), 429 (rate_limited). A download whose bytes do not hash to the
 * expected sha256 is an `invalid_reply`.
 */
const reportOrderSchema = z.object({
  order_no: z.string(),
  client_request_id: z.string(),
  type: z.string(),
  status: z.string(),
  quota_bucket: z.string(),
  progress_pct: z.number().int(),
  address: z.string(),
  token_id: z.string(),
  date_from: z.string(),
  date_to: z.string(),
  format: z.string(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
  expires_at: z.string().nullable(),
  artifact_sha256: z.string().nullable(),
  artifact_size: z.number().int().nullable(),
  download_url: z.string().nullable().optional(),
  error_code: z.union([z.string(), z.number()]).optional(),
  error_message: z.string().optional(),
});

const reportReplySchema = z.object({
  status: z.string(),
  code: z.number().int(),
  msg: z.string(),
  data: reportOrderSchema,
});

export type ReportOrder = z.infer<typeof reportOrderSchema>;
export type ReportReply = z.infer<typeof reportReplySchema>;

export interface StatementRequest {
  /** Unique per account; a repeat returns the existing order (`msg` existing). */
  client_request_id: string;
  address: string;
  /** TRX by default, or a TRC20 contract or TRC10 id. */
  token_id?: string;
  date_from: string;
  date_to: string;
  format?: "csv" | "pdf";
  /** Optional X-Idempotency-Key (12 to 128 characters of A-Z a-z 0-9 . _ : -). */
  idempotencyKey?: string;
}

export interface DownloadedReport {
  bytes: Buffer;
  filename: string | undefined;
  contentType: string | undefined;
}

const headerOf = (headers: Record<string, string | string[] | undefined>, name: string) => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** The file name of a Content-Disposition header (RFC 6266 `filename*` preferred). */
function dispositionFilename(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(value);
  if (extended?.[1]) {
    try {
      return decodeURIComponent(extended[1].trim());
    } catch {
      // fall through to the plain parameter
    }
  }
  const plain = /filename\s*=\s*("([^"]*)"|[^;]+)/.exec(value);
  return plain ? (plain[2] ?? plain[1]?.trim()) : undefined;
}

export function createReportsApi(transport: Transport) {
  const orderPath = (orderNo: string) => `/apiv2/reports/${encodeURIComponent(orderNo)}`;

  return {
    /** Resendable: `client_request_id` makes a repeat return the same order, never a second one. */
    async statement(request: StatementRequest): Promise<ReportReply> {
      const { idempotencyKey, ...body } = request;
      const reply = await transport.send({
        family: "reports",
        endpoint: "reports.statement",
        method: "POST",
        path: "/apiv2/reports/statement",
        body,
        headers: idempotencyKey ? { "x-idempotency-key": idempotencyKey } : undefined,
        auth: "key+ip",
        timeoutMs: 15_000,
        buckets: ["reports_statement"],
        resendable: true,
      });
      return parseReply("reports", "reports.statement", reply, reportReplySchema);
    },

    async read(orderNo: string): Promise<ReportReply> {
      const reply = await transport.send({
        family: "reports",
        endpoint: "reports.read",
        method: "GET",
        path: orderPath(orderNo),
        auth: "key+ip",
        timeoutMs: 10_000,
        buckets: ["reports_read"],
        resendable: true,
      });
      return parseReply("reports", "reports.read", reply, reportReplySchema);
    },

    /** The file as sent (a CSV arrives gzipped: decompressing is the caller's business). */
    async download(orderNo: string, expectedSha256: string): Promise<DownloadedReport> {
      const reply = await transport.send({
        family: "reports",
        endpoint: "reports.download",
        method: "GET",
        path: `${orderPath(orderNo)}/download`,
        headers: { accept: "*/*" },
        auth: "key+ip",
        timeoutMs: 60_000,
        buckets: ["reports_download"],
        resendable: true,
      });
      const actual = createHash("sha256").update(reply.body).digest("hex");
      if (actual !== expectedSha256.toLowerCase()) {
        throw new ServiceError({
          family: "reports",
          endpoint: "reports.download",
          kind: "invalid_reply",
          httpStatus: reply.status,
          message: `the downloaded report ${orderNo} does not match its sha256 (expected ${expectedSha256}, got ${actual})`,
          retryable: false,
        });
      }
      return {
        bytes: reply.body,
        filename: dispositionFilename(headerOf(reply.headers, "content-disposition")),
        contentType: headerOf(reply.headers, "content-type"),
      };
    },
  };
}
