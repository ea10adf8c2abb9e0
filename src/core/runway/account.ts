import { z } from "zod";
import { type Userinfo, userinfoSchema } from "../../service/account.js";
import { getJson } from "../../store/store-json.js";
import type { CoreDeps } from "../deps.js";
import { type Balance, getBalance } from "../spend/balance-cache.js";

/**
 * The account as the runway and the digest need it. The balance comes from `getBalance`, which
 * shares its userinfo reads with quotes and `balance` (6 a minute for every instance together);
 * the rest of that read (total spent, deposit address, network energy fee) from the copy it keeps.
 * Only when no copy is kept is userinfo asked here, through the same rate-limited client.
 */
const SNAPSHOT_KEY = "balance:userinfo";
const snapshotSchema = z.object({ fetchedAt: z.number(), info: userinfoSchema });

export interface AccountRead {
  balance: Balance;
  info?: Userinfo;
  /** When `info` was read from the service. */
  infoAt?: number;
}

type Deps = Pick<CoreDeps, "service" | "store" | "logger" | "now">;

export async function readAccount(deps: Deps): Promise<AccountRead> {
  const balance = await getBalance(deps);
  const kept = await getJson(deps.store, SNAPSHOT_KEY, snapshotSchema);
  if (kept) return { balance, info: kept.info, infoAt: kept.fetchedAt };
  try {
    const info = await deps.service.account.userinfo();
    return { balance, info, infoAt: deps.now() };
  } catch (error) {
    deps.logger.warn({ err: error }, "account details unreadable for the runway; going on with the balance");
    return { balance };
  }
}

/** The kept copy only (no service call): for renderers that must not spend a userinfo read. */
export async function keptAccount(deps: Pick<CoreDeps, "store">): Promise<Userinfo | undefined> {
  return (await getJson(deps.store, SNAPSHOT_KEY, snapshotSchema))?.info;
}
