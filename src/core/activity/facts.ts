import { z } from "zod";
import type { Store } from "../../store/store.js";
import type { AuditEntry } from "../audit-entry.js";
import type { CoreDeps } from "../deps.js";

/**
 * What the digest reads beside the spend ledger (which holds the money): one list per UTC day of
 * what else happened that day, written at the moment it happens by one-line hooks (the audit of
 * guarded actions, approvals and cases, final screenings' levels, deny-list refusals). Facts of
 * the same event are written once. Days older than KEEP_DAYS are deleted by the first fact of a
 * new day.
 */
export const KEEP_DAYS = 31;
/** Far above a busy day; the list is trimmed, never unbounded. */
const MAX_FACTS_PER_DAY = 50_000;
const ONCE_TTL_MS = 3 * 24 * 3_600_000;
const DAY_MS = 24 * 3_600_000;

const auditFact = z.object({
  type: z.literal("audit"),
  entry: z.custom<AuditEntry>((v) => typeof v === "object" && v !== null),
});
const screeningFact = z.object({
  type: z.literal("screening"),
  at: z.string(),
  orderId: z.string(),
  level: z.string(),
});
const refusalFact = z.object({
  type: z.literal("refusal"),
  at: z.string(),
  address: z.string(),
  category: z.string(),
});
const factSchema = z.discriminatedUnion("type", [auditFact, screeningFact, refusalFact]);
export type Fact = z.infer<typeof factSchema>;

/** `YYYY-MM-DD` of the UTC day of `at` (ms or ISO). */
export const utcDay = (at: number | string): string => new Date(at).toISOString().slice(0, 10);
const factsKey = (day: string): string => `digest:facts:${day}`;

const factTime = (fact: Fact): string => (fact.type === "audit" ? fact.entry.at : fact.at);

async function recordFact(store: Store, fact: Fact): Promise<void> {
  const day = utcDay(factTime(fact));
  await store.listPush(factsKey(day), JSON.stringify(fact), MAX_FACTS_PER_DAY);
  // The first fact of a day sweeps the day that just fell out of the window.
  if (await store.setIfNotExists(`digest:swept:${day}`, "1", ONCE_TTL_MS)) {
    await store.del(factsKey(utcDay(Date.parse(`${day}T00:00:00Z`) - KEEP_DAYS * DAY_MS)));
  }
}

/** Records `fact` once per `id` (a replayed callback or a re-run poll records nothing more). */
async function recordOnce(store: Store, id: string, fact: Fact): Promise<void> {
  if (await store.setIfNotExists(`digest:once:${id}`, "1", ONCE_TTL_MS)) await recordFact(store, fact);
}

/** Every fact of a UTC day, oldest first; unreadable ones are skipped. */
export async function readFacts(store: Store, day: string): Promise<Fact[]> {
  const raw = await store.listRange(factsKey(day), MAX_FACTS_PER_DAY);
  const facts: Fact[] = [];
  for (const item of raw.reverse()) {
    try {
      const parsed = factSchema.safeParse(JSON.parse(item));
      if (parsed.success) facts.push(parsed.data);
    } catch {
      // One malformed fact must not hide the day.
    }
  }
  return facts;
}

// The hooks, one call each at the moment the fact happens.

export async function noteAudit(store: Store, entry: AuditEntry): Promise<void> {
  await recordFact(store, { type: "audit", entry });
  // Host Mode cycles are charged later, by callbacks that name only the address: remember who started it.
  if (entry.verb === "host start" && entry.result === "ok" && entry.address) {
    await store.set(starterKey(entry.address), entry.actor, STARTER_TTL_MS);
  }
}

const STARTER_TTL_MS = 365 * DAY_MS;
const starterKey = (address: string): string => `digest:host-starter:${address}`;

/** Who started Host Mode for each address (as far as this bot saw it). */
export async function hostStarters(store: Store, addresses: Iterable<string>): Promise<Map<string, string>> {
  const unique = [...new Set(addresses)];
  const found = await Promise.all(unique.map((a) => store.get(starterKey(a))));
  const map = new Map<string, string>();
  unique.forEach((address, i) => {
    const who = found[i];
    if (who) map.set(address, who);
  });
  return map;
}

export function noteScreening(
  deps: Pick<CoreDeps, "store" | "now">,
  order: { order: { client_order_id: string }; risk: { level: string } },
): Promise<void> {
  return recordOnce(deps.store, `screening:${order.order.client_order_id}`, {
    type: "screening",
    at: new Date(deps.now()).toISOString(),
    orderId: order.order.client_order_id,
    level: order.risk.level,
  });
}

export function noteRefusal(
  deps: Partial<Pick<CoreDeps, "store" | "now">>,
  verdict: { address: string; category: string },
): Promise<void> {
  // Callers that quote without a store (unit tests of the preflight) record nothing.
  if (!deps.store || !deps.now) return Promise.resolve();
  return recordFact(deps.store, {
    type: "refusal",
    at: new Date(deps.now()).toISOString(),
    address: verdict.address,
    category: verdict.category,
  });
}
