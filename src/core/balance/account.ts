import type { Userinfo } from "../../service/account.js";
import type { CoreDeps } from "../deps.js";
import { type Balance, getBalance } from "./balance-cache.js";
import { readSnapshot, startBalanceRefresh } from "./balance-refresh.js";

/**
 * The account as the runway and the digest need it. The runway check is a background job, so it
 * may wait for a userinfo slot: it runs the shared refresher (the one reader of userinfo, 6 a
 * minute for every instance together) and waits for its reading; then the balance comes from
 * `getBalance` like a quote's, and the rest of that read (total spent, deposit address, network
 * energy fee) from the kept reading.
 */

/** The account as the last reading left it (no request): the chart's balance readings start from it. */
export async function keptAccount(deps: Pick<CoreDeps, "store">): Promise<Userinfo | undefined> {
  return (await readSnapshot(deps.store))?.info;
}

export interface AccountRead {
  balance: Balance;
  info?: Userinfo;
  /** When `info` was read from the service. */
  infoAt?: number;
}

type Deps = Pick<CoreDeps, "service" | "store" | "logger" | "now">;

export async function readAccount(deps: Deps): Promise<AccountRead> {
  // Another instance may hold the refresher: then its reading (or the last one) is used.
  const refresh = await startBalanceRefresh(deps);
  await refresh?.done.catch((error: unknown) => {
    deps.logger.warn({ err: error }, "account unreadable for the runway; going on with the last reading");
  });
  const balance = await getBalance(deps);
  const kept = await readSnapshot(deps.store);
  return kept ? { balance, info: kept.info, infoAt: kept.fetchedAt } : { balance };
}
