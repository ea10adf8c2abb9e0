import { isServiceError } from "../../service/errors.js";
import type { HostStatus } from "../../service/host-mode.js";
import type { CoreDeps } from "../deps.js";
import { hostFailureLine } from "./host-errors.js";

/**
 * The service's Time Status of an address (`POST /apiv2/time/status`), read leniently (the spec
 * shows only some of its fields): what `host status` shows, what the Status button refreshes, and
 * how a start is confirmed to have taken effect (the spec: the add reply does not say so).
 */
/** The check on a start message waits this long at most: the start's outcome is not held up for it. */
export const START_CHECK_TIMEOUT_MS = 3_000;

export type StatusReading =
  | { ok: true; data: HostStatus; message: string }
  | { ok: false; notRegistered: boolean; line: string };

export async function readHostStatus(
  deps: Pick<CoreDeps, "service" | "logger">,
  address: string,
  options: { timeoutMs?: number; maxAttempts?: number } = {},
): Promise<StatusReading> {
  try {
    const reply = await deps.service.hostMode.status(address, options);
    return { ok: true, data: reply.data, message: reply.message };
  } catch (error) {
    if (isServiceError(error) && error.kind === "http" && error.code === -4) {
      const line = `${address} is not registered for Host Mode with this account, so the service has no status for it (code -4). Start it with: host start ${address}`;
      return { ok: false, notRegistered: true, line };
    }
    deps.logger.warn({ err: error, address }, "Host Mode status not read");
    return { ok: false, notRegistered: false, line: hostFailureLine(error, address, "status") };
  }
}

/** `status` as a word: the service may send a word or the registration's number (0: inactive). */
export function statusWord(status: HostStatus["status"]): string | undefined {
  if (status === undefined) return undefined;
  if (typeof status === "number") return status === 0 ? "inactive" : status === 1 ? "active" : String(status);
  return status.trim().toLowerCase() || undefined;
}

/** Null cycles mean unlimited (infinity mode); absent means the reply did not say. */
export function cyclesText(cycles: number | null | undefined): string | undefined {
  if (cycles === undefined) return undefined;
  return cycles === null ? "unlimited" : String(cycles);
}

/** The reading says infinity mode runs: status active and mode infinity (or unlimited cycles when no mode is given). */
function infinityRunning(data: HostStatus): boolean {
  if (statusWord(data.status) !== "active") return false;
  const mode = data.mode?.trim().toLowerCase();
  if (mode !== undefined) return mode === "infinity";
  return data.cycles_remaining === null;
}

/** "active, infinity, cycles remaining unlimited, order 70001": only what the reply holds. */
export function readingPhrase(data: HostStatus): string {
  const parts: string[] = [];
  const status = statusWord(data.status);
  if (status !== undefined) parts.push(status);
  if (data.mode) parts.push(data.mode);
  const remaining = cyclesText(data.cycles_remaining);
  if (remaining !== undefined) parts.push(`cycles remaining ${remaining}`);
  if (data.order_id !== undefined && data.order_id !== null) parts.push(`order ${data.order_id}`);
  return parts.length > 0 ? parts.join(", ") : "no known fields in the reply";
}

/** The line a start message carries: whether Time Status shows the start took effect. */
export function startCheckLine(reading: StatusReading, address: string): string {
  if (!reading.ok) {
    return `Time Status could not confirm the start just now (${reading.line.replace(/\.$/, "")}). Press Status, or run host status ${address}.`;
  }
  if (infinityRunning(reading.data)) return `Confirmed by Time Status: ${readingPhrase(reading.data)}.`;
  return `Warning: Time Status does not show infinity mode running yet (${readingPhrase(reading.data)}). Press Status in a moment, or run host status ${address}.`;
}
