import type { CoreDeps } from "../deps.js";
import type { ConversationRef } from "../invocation.js";

/**
 * What other features do when a watched address becomes blocked: Host Mode's guard offers to stop
 * it (or stops it), the standing orders of the address pause. The watch imports none of them:
 * `src/core/features.ts` hands it their hooks (`watchFeatureWith`), so the features that spend can
 * call the watch (`autoWatch`) without a loop.
 */
export interface BlockedChange {
  address: string;
  /** The deny list's new category (`usdt_frozen`, `smart_contract`, `aml_risk`, …). */
  category: string;
  /** The change's number for this address: a key made with it is the same on a re-run. */
  seq: number;
  /** The conversations watching the address. */
  watchers: readonly ConversationRef[];
}

/** What the change alert then says and offers about Host Mode. */
export interface GuardOutcome {
  hostLine?: string;
  /** Per conversation: the Stop button's token. */
  stopTokens?: Map<string, string>;
}

export type OnBlocked = (deps: CoreDeps, change: BlockedChange) => Promise<GuardOutcome>;

/** Every hook run in order; what they say is merged (a later one's line wins). */
export async function runOnBlocked(
  deps: CoreDeps,
  hooks: readonly OnBlocked[],
  change: BlockedChange,
): Promise<GuardOutcome> {
  let outcome: GuardOutcome = {};
  for (const hook of hooks) outcome = { ...outcome, ...(await hook(deps, change)) };
  return outcome;
}
