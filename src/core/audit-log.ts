import type { Store } from "../store/store.js";
import { noteAudit } from "./activity/facts.js";
import type { AuditEntry } from "./audit-entry.js";

/** Who spent what, where, with which result. Newest first in one capped list. */
const AUDIT_KEY = "audit";
export const AUDIT_MAX_ENTRIES = 1000;

export type { AuditEntry };

export async function appendAudit(store: Store, entry: AuditEntry): Promise<void> {
  await store.listPush(AUDIT_KEY, JSON.stringify(entry), AUDIT_MAX_ENTRIES);
  await noteAudit(store, entry);
}

/** The last `count` entries, newest first; unreadable entries are skipped. */
export async function readAudit(store: Store, count: number): Promise<AuditEntry[]> {
  const raw = await store.listRange(AUDIT_KEY, count);
  const entries: AuditEntry[] = [];
  for (const item of raw) {
    try {
      entries.push(JSON.parse(item) as AuditEntry);
    } catch {
      // A malformed entry must not hide the others.
    }
  }
  return entries;
}

/** One compact line: `2025-03-01 12:00Z slack:U1 energy TXy… 65000 quote 3.2 TRX ok orders 123`. */
export function formatAuditLine(entry: AuditEntry): string {
  const at = entry.at.replace("T", " ").replace(/:\d\d(\.\d+)?Z$/, "Z");
  const parts = [at, entry.actor, entry.verb];
  if (entry.address) parts.push(entry.address);
  if (entry.amount) parts.push(entry.amount);
  if (entry.quoteTrx) parts.push(`quote ${entry.quoteTrx} TRX`);
  parts.push(entry.result);
  if (entry.orderIds && entry.orderIds.length > 0) parts.push(`orders ${entry.orderIds.join(",")}`);
  if (entry.schedule) parts.push(`by standing order ${entry.schedule}`);
  if (entry.requester) parts.push(`asked by ${entry.requester}`);
  if (entry.message) parts.push(`(${entry.message})`);
  parts.push(`in ${entry.conversation}`);
  return parts.join(" ");
}
