import { z } from "zod";

/**
 * One entry of the spend ledger: the one record of money (DESIGN.md, "Turn 5"). Every spend
 * outcome is one entry — ordered at what the service charged, failed, or refused at Confirm —
 * written once, chained, never edited. Caps, `digest`, `chart spend`, the runway, `audit`, agents'
 * budgets and the export read these entries; nothing reads audit sentences back.
 */
const LEDGER_KINDS = [
  "energy",
  "payout",
  "host_start",
  "host_cycle",
  "schedule_run",
  "screening",
  "rescreen",
  "subuser_delete",
  "refusal",
] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

const LEDGER_RESULTS = ["ordered", "failed", "refused"] as const;
export type LedgerResult = (typeof LEDGER_RESULTS)[number];

/** What a writer says of an outcome; the ledger adds `seq`, `at` and the chain. */
const ledgerFieldsSchema = z.object({
  kind: z.enum(LEDGER_KINDS),
  /** `slack:U…`, `agent:<name>`, `schedule:<id>`, `host:<address>`, `watch:<address>`. */
  actor: z.string(),
  /** Who asked for it: the person, the agent (`agent:<name>`), a standing order's creator. */
  requester: z.string(),
  /** The address it went to; a payout run names how many in `detail`. */
  address: z.string(),
  /** What the service charged, integer SUN; 0 when nothing was. */
  amountSun: z.number().int().nonnegative(),
  result: z.enum(LEDGER_RESULTS),
  orderIds: z.array(z.string()),
  confirmationId: z.string(),
  detail: z.string(),
  /** Energy delivered by it (the saving's base; also written in `detail`). */
  energy: z.number().int().nonnegative().optional(),
  /** A payout run's address count. */
  addresses: z.number().int().nonnegative().optional(),
});
export type LedgerFields = z.infer<typeof ledgerFieldsSchema>;

export const ledgerEntrySchema = ledgerFieldsSchema.extend({
  seq: z.number().int().positive(),
  /** ISO 8601 UTC, never earlier than the entry before it. */
  at: z.string(),
  prevHash: z.string(),
  hash: z.string(),
});
export type LedgerEntry = z.infer<typeof ledgerEntrySchema>;

/** The `prev_hash` of the first entry ever. */
export const GENESIS_HASH = "0".repeat(64);

/** Money spent: an ordered entry's charge (a refusal or a failure costs what it says, 0). */
export const isCharge = (e: Pick<LedgerEntry, "result" | "amountSun">): boolean =>
  e.result === "ordered" && e.amountSun > 0;
