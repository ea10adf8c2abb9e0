import Big from "big.js";
import { z } from "zod";
import { getJson, setJsonIfNotExists } from "../../store/store-json.js";
import { raiseAlert } from "../alerts/index.js";
import { readAccount } from "../balance/account.js";
import { readSnapshot } from "../balance/balance-refresh.js";
import type { CoreDeps } from "../deps.js";
import { formatAmount } from "../format.js";
import type { ConversationRef } from "../invocation.js";
import { sunAsTrx } from "../ledger/csv-row.js";
import { isCharge } from "../ledger/entry.js";
import { dayOf, readSince } from "../ledger/ledger.js";
import { publicReply, text } from "../reply.js";

/**
 * The ledger against the service's own count: the first `total_trx_spent` reading of each UTC day
 * (userinfo, through the shared balance refresher) is kept; when the next day's first reading
 * comes, what the ledger entered between the two readings is compared with how much the total
 * grew between them. A difference beyond rounding raises one alert naming both figures (spends
 * made outside the bot, a charge the bot recorded wrongly). `digest` shows the same comparison for
 * the day so far.
 */
const DAY_MS = 24 * 3_600_000;
const READING_TTL_MS = 4 * DAY_MS;
/** Below this the two are the same: the service rounds its total, the ledger keeps SUN. */
const TOLERANCE_TRX = "0.01";
const readingSchema = z.object({ at: z.number(), spentTrx: z.string() });
type Reading = z.infer<typeof readingSchema>;
const readingKey = (day: string): string => `ledger:service-total:${day}`;

export interface Reconciliation {
  from: number;
  to: number;
  ledgerTrx: string;
  serviceTrx: string;
  differs: boolean;
}

type Deps = Pick<CoreDeps, "store" | "now">;

/** Keeps a reading as its day's first (the first one of the day wins, on every instance). */
async function keepFirstReading(deps: Pick<CoreDeps, "store">, reading: Reading): Promise<boolean> {
  return setJsonIfNotExists(deps.store, readingKey(dayOf(reading.at)), reading, READING_TTL_MS);
}

async function compare(deps: Deps, from: Reading, to: Reading): Promise<Reconciliation> {
  const entries = await readSince(deps.store, to.at, Math.max(0, to.at - from.at));
  const sinceIso = new Date(from.at).toISOString();
  const untilIso = new Date(to.at).toISOString();
  const ledgerSun = entries
    .filter((e) => isCharge(e) && e.at >= sinceIso && e.at < untilIso)
    .reduce((sum, e) => sum + e.amountSun, 0);
  const ledgerTrx = sunAsTrx(ledgerSun);
  const serviceTrx = new Big(to.spentTrx).minus(from.spentTrx).toFixed();
  const differs = new Big(serviceTrx).minus(ledgerTrx).abs().gt(TOLERANCE_TRX);
  return { from: from.at, to: to.at, ledgerTrx, serviceTrx, differs };
}

/**
 * A day as the digest shows it: from its first reading to the next day's first, or, for today, to
 * the last reading kept. Undefined while there are not two readings to compare.
 */
export async function reconcileDay(deps: Deps, day: string): Promise<Reconciliation | undefined> {
  const first = await getJson(deps.store, readingKey(day), readingSchema);
  if (first === null) return undefined;
  const next = await getJson(
    deps.store,
    readingKey(dayOf(Date.parse(`${day}T00:00:00Z`) + DAY_MS)),
    readingSchema,
  );
  if (next !== null) return compare(deps, first, next);
  if (day !== dayOf(deps.now())) return undefined;
  const last = await readSnapshot(deps.store);
  if (last === null || last.fetchedAt <= first.at) return undefined;
  return compare(deps, first, { at: last.fetchedAt, spentTrx: String(last.info.stats.total_trx_spent) });
}

export function reconciliationLine(r: Reconciliation): string {
  const span = `${new Date(r.from).toISOString().slice(11, 16)}–${new Date(r.to).toISOString().slice(11, 16)} UTC`;
  const figures = `the ledger ${formatAmount(r.ledgerTrx)}, the service's total_trx_spent +${formatAmount(r.serviceTrx)} (${span})`;
  return r.differs ? `differ: ${figures}` : `agree: ${figures}`;
}

/**
 * One tick: a reading of the account (shared refresher, never more than its 6 a minute); the first
 * reading of a new day closes the day before, which is compared once and alerted on when it differs.
 */
export async function reconcileTick(
  deps: CoreDeps,
  alerts: readonly ConversationRef[],
): Promise<Reconciliation | undefined> {
  const account = await readAccount(deps);
  if (account.info === undefined || account.infoAt === undefined) return undefined;
  const reading = { at: account.infoAt, spentTrx: String(account.info.stats.total_trx_spent) };
  if (!(await keepFirstReading(deps, reading))) return undefined;
  const yesterday = dayOf(reading.at - DAY_MS);
  const start = await getJson(deps.store, readingKey(yesterday), readingSchema);
  if (start === null) return undefined;
  const result = await compare(deps, start, reading);
  if (!result.differs) {
    deps.logger.info({ day: yesterday, ...result }, "ledger reconciled with the service's total");
    return result;
  }
  const line = `Spend ledger and service disagree for ${yesterday}: ${reconciliationLine(result).replace(/^differ: /, "")}. Spends made outside the bot, or a charge the bot recorded wrongly: check the statement.`;
  if (alerts.length === 0) deps.logger.warn({ day: yesterday, ...result }, line);
  await raiseAlert(deps, {
    key: `ledger-reconcile:${yesterday}`,
    kind: "ledger.reconcile",
    subject: { type: "account", id: "ledger" },
    severity: "warning",
    posts: alerts.map((conversation) => ({ conversation, reply: publicReply(line, [text(line)]) })),
  });
  return result;
}
