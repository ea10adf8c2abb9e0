import Big from "big.js";
import { z } from "zod";
import { userinfoSchema } from "../../service/account.js";
import { isServiceError } from "../../service/errors.js";
import { getJson, setJson } from "../../store/store-json.js";
import type { CoreDeps } from "../deps.js";
import { toUserLine } from "../errors.js";
import { formatAmount, formatEpoch } from "../render/format.js";

/**
 * The account balance for quotes. userinfo allows 6 requests a minute per IP, shared by every
 * instance of the bot, so one reading serves every quote for 15 seconds. The entry is the one the
 * `balance` command keeps (same key, same shape), so quotes and `balance` share their reads
 * instead of competing for the 6 a minute. A spend marks it stale, so the next quote sees what the
 * order took. A failed read never blocks a quote: the balance is shown as unknown, and the
 * service's own check (1004 insufficient funds) still applies.
 */
export const BALANCE_FRESH_MS = 15_000;
/** The `balance` command's entry: `{fetchedAt, info}`, kept 30 minutes as its fallback copy. */
const BALANCE_KEY = "balance:userinfo";
const KEEP_MS = 30 * 60_000;

const snapshotSchema = z.object({ fetchedAt: z.number(), info: userinfoSchema });
type Snapshot = z.infer<typeof snapshotSchema>;

export type Balance = { known: true; balanceTrx: string; readAt: number } | { known: false; reason: string };

/** A JSON number; String() of a double gives its shortest exact decimal form. */
const known = (snapshot: Snapshot): Balance => ({
  known: true,
  balanceTrx: new Big(String(snapshot.info.stats.balance)).toFixed(),
  readAt: snapshot.fetchedAt,
});

function unreadable(error: unknown, older: Snapshot | null): Balance {
  const why =
    isServiceError(error) && error.kind === "rate_limited"
      ? "the account endpoint allows 6 reads a minute"
      : toUserLine(error).replace(/\.$/, "");
  const last = older
    ? `; last read ${formatAmount(String(older.info.stats.balance))} at ${formatEpoch(older.fetchedAt)}`
    : "";
  return { known: false, reason: `${why}${last}` };
}

export async function getBalance(
  deps: Pick<CoreDeps, "service" | "store" | "logger" | "now">,
): Promise<Balance> {
  const now = deps.now();
  const cached = await getJson(deps.store, BALANCE_KEY, snapshotSchema);
  if (cached && now >= cached.fetchedAt && now - cached.fetchedAt < BALANCE_FRESH_MS) return known(cached);
  try {
    const snapshot: Snapshot = { fetchedAt: now, info: await deps.service.account.userinfo() };
    await setJson(deps.store, BALANCE_KEY, snapshot, KEEP_MS);
    return known(snapshot);
  } catch (error) {
    if (!isServiceError(error)) throw error;
    deps.logger.warn(
      { err: error, endpoint: error.endpoint, code: error.code },
      "balance read failed for a quote",
    );
    return unreadable(error, cached);
  }
}

/**
 * After a spend: the copy is kept (as `balance`'s fallback, with a time no later than its real
 * one) but is no longer fresh, so the next reader asks the service.
 */
export async function forgetBalance(deps: Pick<CoreDeps, "store" | "now">): Promise<void> {
  const cached = await getJson(deps.store, BALANCE_KEY, snapshotSchema);
  if (!cached) return;
  const fetchedAt = Math.min(cached.fetchedAt, deps.now() - BALANCE_FRESH_MS);
  await setJson(deps.store, BALANCE_KEY, { ...cached, fetchedAt }, KEEP_MS);
}

/** True / false when the balance is known, undefined when it is not. */
export function balanceCovers(balance: Balance, costTrx: string): boolean | undefined {
  if (!balance.known) return undefined;
  return new Big(balance.balanceTrx).gte(costTrx);
}
