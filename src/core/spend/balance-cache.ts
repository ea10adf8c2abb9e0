import Big from "big.js";
import { isServiceError } from "../../service/errors.js";
import type { CoreDeps } from "../deps.js";
import { toUserLine } from "../errors.js";

/**
 * The account balance for quotes. userinfo allows 6 requests a minute per IP, shared by every
 * instance of the bot, so one reading serves every quote for 15 seconds; a spend forgets it, so
 * the next quote sees what the order took. A failed read never blocks a quote: the balance is then
 * shown as unknown and the service's own check (1004 insufficient funds) still applies.
 */
export const BALANCE_CACHE_TTL_MS = 15_000;
const BALANCE_KEY = "balance:userinfo";

export type Balance = { known: true; balanceTrx: string; readAt: number } | { known: false; reason: string };

interface CachedBalance {
  balanceTrx: string;
  readAt: number;
}

function decode(raw: string | null): CachedBalance | undefined {
  if (raw === null) return undefined;
  try {
    const value = JSON.parse(raw) as Partial<CachedBalance>;
    if (typeof value.balanceTrx !== "string" || typeof value.readAt !== "number") return undefined;
    new Big(value.balanceTrx);
    return { balanceTrx: value.balanceTrx, readAt: value.readAt };
  } catch {
    return undefined;
  }
}

export async function getBalance(
  deps: Pick<CoreDeps, "service" | "store" | "logger" | "now">,
): Promise<Balance> {
  const cached = decode(await deps.store.get(BALANCE_KEY));
  if (cached) return { known: true, ...cached };
  try {
    const info = await deps.service.account.userinfo();
    // A JSON number; String() of a double gives its shortest exact decimal form.
    const fresh: CachedBalance = {
      balanceTrx: new Big(String(info.stats.balance)).toFixed(),
      readAt: deps.now(),
    };
    await deps.store.set(BALANCE_KEY, JSON.stringify(fresh), BALANCE_CACHE_TTL_MS);
    return { known: true, ...fresh };
  } catch (error) {
    if (!isServiceError(error)) throw error;
    deps.logger.warn(
      { err: error, endpoint: error.endpoint, code: error.code },
      "balance read failed for a quote",
    );
    return { known: false, reason: toUserLine(error) };
  }
}

/** After a spend: the next quote reads the balance again. */
export async function forgetBalance(deps: Pick<CoreDeps, "store">): Promise<void> {
  await deps.store.del(BALANCE_KEY);
}

/** True / false when the balance is known, undefined when it is not. */
export function balanceCovers(balance: Balance, costTrx: string): boolean | undefined {
  if (!balance.known) return undefined;
  return new Big(balance.balanceTrx).gte(costTrx);
}
