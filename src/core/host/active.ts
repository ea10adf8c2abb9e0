import type { CoreDeps } from "../deps.js";

/**
 * Which addresses are in Host Mode: the one set the Host Mode command keeps (start, stop, the
 * `host_paused` callback) and everyone else reads (the home summary, the watchlist's guard).
 */
export const ACTIVE_HOSTS_KEY = "host:active";

/** For the Host Mode command: an address started infinity mode. */
export async function markHostActive(deps: Pick<CoreDeps, "store">, address: string): Promise<void> {
  await deps.store.setAdd(ACTIVE_HOSTS_KEY, address);
}

/** For the Host Mode command (and its `host_paused` callback): an address left Host Mode. */
export async function markHostStopped(deps: Pick<CoreDeps, "store">, address: string): Promise<void> {
  await deps.store.setRemove(ACTIVE_HOSTS_KEY, address);
}

/** Every address in Host Mode, in no particular order. */
export const activeHosts = (deps: Pick<CoreDeps, "store">): Promise<string[]> =>
  deps.store.setMembers(ACTIVE_HOSTS_KEY);

export const isInHostMode = async (deps: Pick<CoreDeps, "store">, address: string): Promise<boolean> =>
  (await activeHosts(deps)).includes(address);
