import { sha256 } from "@noble/hashes/sha2.js";
import { createBase58check } from "@scure/base";
import { isRecord } from "../../router.js";
import type { FieldError } from "./common.js";
import type { StatementRequest } from "./report-artifacts.js";

/** Validation of POST /apiv2/reports/statement: 422 for missing or malformed fields, 400 for a bad checksum. */

const base58check = createBase58check(sha256);
const TRON_ADDRESS = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;
const IDENTIFIER = /^[A-Za-z0-9._:-]+$/;
const DATE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;
const MAX_PERIOD_DAYS = 366;
const DAY_MS = 86_400_000;

/** True when the 34-character address decodes with a valid checksum to a 0x41-prefixed payload. */
function tronChecksumOk(address: string): boolean {
  try {
    const payload = base58check.decode(address);
    return payload.length === 21 && payload[0] === 0x41;
  } catch {
    return false;
  }
}

export const validIdempotencyKey = (key: string): boolean =>
  key.length >= 12 && key.length <= 128 && IDENTIFIER.test(key);

function dateMs(value: unknown): number | undefined {
  if (typeof value !== "string" || !DATE.test(value)) return undefined;
  const ms = Date.parse(`${value}T00:00:00Z`);
  // Date.parse rolls 2025-02-30 over to March: compare back to reject impossible dates.
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === value ? ms : undefined;
}

function tokenOk(token: string): boolean {
  return token === "TRX" || TRON_ADDRESS.test(token) || /^[0-9]{1,10}$/.test(token);
}

export interface ParsedStatement extends StatementRequest {
  client_request_id: string;
}

export type StatementCheck =
  | { ok: true; value: ParsedStatement }
  | { ok: false; status: 422; errors: FieldError[] }
  | { ok: false; status: 400; message: string };

function periodErrors(from: number | undefined, to: number | undefined): FieldError[] {
  const errors: FieldError[] = [];
  if (from === undefined) errors.push({ field: "date_from", msg: "required, a date as YYYY-MM-DD" });
  if (to === undefined) errors.push({ field: "date_to", msg: "required, a date as YYYY-MM-DD" });
  if (from !== undefined && to !== undefined) {
    if (to < from) errors.push({ field: "date_to", msg: "must not be before date_from" });
    else if ((to - from) / DAY_MS + 1 > MAX_PERIOD_DAYS)
      errors.push({ field: "date_to", msg: `period above ${MAX_PERIOD_DAYS} days` });
  }
  return errors;
}

export function checkStatement(body: unknown): StatementCheck {
  if (!isRecord(body))
    return { ok: false, status: 422, errors: [{ field: "body", msg: "a JSON object is required" }] };
  const errors: FieldError[] = [];
  const { client_request_id: id, address, token_id: token = "TRX", format = "csv" } = body;
  if (typeof id !== "string" || id.length === 0 || id.length > 128 || !IDENTIFIER.test(id)) {
    errors.push({ field: "client_request_id", msg: "required, 1 to 128 characters of A-Z a-z 0-9 . _ : -" });
  }
  if (typeof address !== "string" || !TRON_ADDRESS.test(address)) {
    errors.push({ field: "address", msg: "required, a TRON base58 address of 34 characters" });
  }
  if (typeof token !== "string" || !tokenOk(token)) {
    errors.push({ field: "token_id", msg: "TRX, a TRC20 contract address or a TRC10 id" });
  }
  if (format !== "csv" && format !== "pdf") errors.push({ field: "format", msg: "csv or pdf" });
  const from = dateMs(body.date_from);
  const to = dateMs(body.date_to);
  errors.push(...periodErrors(from, to));
  if (errors.length > 0) return { ok: false, status: 422, errors };
  if (!tronChecksumOk(address as string)) {
    return { ok: false, status: 400, message: "address fails its base58 checksum" };
  }
  return {
    ok: true,
    value: {
      client_request_id: id as string,
      address: address as string,
      token_id: token as string,
      date_from: body.date_from as string,
      date_to: body.date_to as string,
      format: format as "csv" | "pdf",
    },
  };
}
