import Big from "big.js";
import { within } from "../../clock.js";
import { isServiceError } from "../../service/errors.js";
import type { StoreReads } from "../../store/read-ahead.js";
import type { Store } from "../../store/store.js";
import type { CoreDeps } from "../deps.js";
import { toUserLine } from "../errors.js";
import { sunToTrx, trxToSun } from "../pricing/trx.js";
import {
  readSnapshot,
  type Snapshot,
  SPENT_KEY,
  spentSunSoFar,
  startBalanceRefresh,
} from "./balance-refresh.js";

/**
 * The account balance for quotes, which never wait on `userinfo`'s 6 reads a minute: the last
 * reading minus what this bot recorded as spent since (`noteSpend`, called where every spend is
 * recorded), with the reading's age. A reading older than BALANCE_FRESH_MS starts one background
 * refresh (shared by every instance, see balance-refresh.ts) and the quote goes on with the
 * estimate. Only the very first quote, with no reading at all, asks the service, and only when a
 * slot is free right now and the answer comes within FIRST_READ_WAIT_MS; otherwise the balance
 * is shown as unknown and the service's own check (1004 insufficient funds) still applies.
 */
const BALANCE_FRESH_MS = 15_000;
const FIRST_READ_WAIT_MS = 1_500;

export type Balance =
  | {
      known: true;
      /** The last reading minus this bot's spends since (exact decimal string). */
      balanceTrx: string;
      /** When the reading was made (ms since the epoch). */
      readAt: number;
      /** How old the reading was when this balance was made. */
      ageMs?: number;
      /** True when spends were subtracted or the reading is older than BALANCE_FRESH_MS. */
      estimated?: boolean;
      /** What was subtracted: this bot's recorded spends since the reading. */
      spentSinceTrx?: string;
    }
  | { known: false; reason: string };

/** Counts a recorded spend against the last reading (SUN, rounded up: never overstates the balance). */
export async function noteSpend(deps: { store: Store }, amountTrx: string): Promise<void> {
  const sun = trxToSun(amountTrx).toNumber();
  if (sun > 0) await deps.store.incrBy(SPENT_KEY, sun);
}

/** The reading as a balance: minus the spends recorded since, flagged estimated when it is not current. */
function estimateFrom(snapshot: Snapshot, spentSunNow: number, now: number): Balance {
  const spentSun = snapshot.spentSun === undefined ? 0 : Math.max(0, spentSunNow - snapshot.spentSun);
  const spentSinceTrx = sunToTrx(spentSun);
  // A JSON number; String() of a double gives its shortest exact decimal form.
  const balanceTrx = new Big(String(snapshot.info.stats.balance)).minus(spentSinceTrx).toFixed();
  const estimated = spentSun > 0 || now - snapshot.fetchedAt >= BALANCE_FRESH_MS;
  const ageMs = Math.max(0, now - snapshot.fetchedAt);
  return { known: true, balanceTrx, readAt: snapshot.fetchedAt, ageMs, estimated, spentSinceTrx };
}

function unreadable(error: unknown): Balance {
  const why =
    isServiceError(error) && error.kind === "rate_limited"
      ? "the account endpoint allows 6 reads a minute"
      : toUserLine(error).replace(/\.$/, "");
  return { known: false, reason: why };
}

/** `reads`: where the last reading is read (a quote's read ahead); a refresh goes through the store. */
export async function getBalance(
  deps: Pick<CoreDeps, "service" | "store" | "logger" | "now">,
  reads: StoreReads = deps.store,
): Promise<Balance> {
  const [snapshot, spentSun] = await Promise.all([readSnapshot(reads), spentSunSoFar(reads)]);
  const now = deps.now();
  if (snapshot) {
    if (now - snapshot.fetchedAt >= BALANCE_FRESH_MS) void startBalanceRefresh(deps).catch(() => {});
    return estimateFrom(snapshot, spentSun, now);
  }
  const refresh = await startBalanceRefresh(deps);
  const outcome = refresh && (await within(refresh.first, FIRST_READ_WAIT_MS));
  if (outcome?.kind === "read") return estimateFrom(outcome.snapshot, await spentSunSoFar(deps.store), now);
  if (outcome?.kind === "failed") return unreadable(outcome.error);
  return {
    known: false,
    reason: "not read yet: the account endpoint allows 6 reads a minute; a read is on its way",
  };
}

/** True / false when the balance is known, undefined when it is not. */
export function balanceCovers(balance: Balance, costTrx: string): boolean | undefined {
  if (!balance.known) return undefined;
  return new Big(balance.balanceTrx).gte(costTrx);
}
