import { z } from "zod";
import { createAction } from "../actions.js";
import type { ActionHandler } from "../command.js";
import type { CoreDeps } from "../deps.js";
import type { Actor, ConversationRef } from "../invocation.js";
import { type Reply, spansToText } from "../reply.js";
import type { BlockedChange, GuardOutcome, OnBlocked } from "../watch/index.js";
import { isInHostMode } from "./active.js";
import { hostCommand } from "./host-command.js";

/**
 * The Host Mode guard: an address in Host Mode (the set `host/active.ts` keeps) that becomes a
 * delegation target the service refuses (frozen, a contract) or a deny-listed one keeps costing
 * cycles for nothing. The alert offers Stop Host Mode, or with OPS_HOST_AUTOSTOP the bot stops it
 * itself. Both run the `host stop` command's own path (service call, App Home list, audit entry).
 */
const HOST_STOP_KIND = "watch.host-stop";
const GUARDED_CATEGORIES: ReadonlySet<string> = new Set(["usdt_frozen", "smart_contract", "aml_risk"]);
/** An alert is read later than a quote: its button lasts a day. */
const STOP_BUTTON_TTL_MS = 24 * 3_600_000;
const AUTOSTOP_KEY = (address: string, seq: number) => `watch:autostop:${address}:${seq}`;
const AUTOSTOP_MARK_TTL_MS = 7 * 24 * 3_600_000;

/** Who the audit log names for a stop the bot made by itself. */
const watchActor = (platform: Actor["platform"]): Actor => ({
  platform,
  userId: "watchlist",
  displayName: "watchlist (OPS_HOST_AUTOSTOP)",
});

/** Where a stop is told when the address has no watcher left: nowhere a person reads. */
const WATCHLIST_ITSELF: ConversationRef = { platform: "watchlist", id: "watchlist" };

const payloadSchema = z.object({ address: z.string().regex(/^T[1-9A-HJ-NP-Za-km-z]{33}$/) });

/** Runs `host stop <address>` as `actor` in `conversation`: the command's path, audit included. */
function stopHost(
  deps: CoreDeps,
  actor: Actor,
  conversation: ConversationRef,
  address: string,
): Promise<Reply> {
  return hostCommand.run({
    invocation: { kind: "command", actor, conversation, text: `host stop ${address}` },
    subverb: "stop",
    args: [address],
    role: "operator",
    deps,
    commands: [hostCommand],
  });
}

export const hostStopAction: ActionHandler = {
  kind: HOST_STOP_KIND,
  role: "operator",
  async run(ctx, payload) {
    const parsed = payloadSchema.safeParse(payload);
    if (!parsed.success) throw new Error(`bad ${HOST_STOP_KIND} payload: ${parsed.error.message}`);
    return stopHost(ctx.deps, ctx.invocation.actor, ctx.invocation.conversation, parsed.data.address);
  },
};

/** What the change alert of a blocked address says and offers about Host Mode (a hook of the watch). */
export const guardHost: OnBlocked = async (deps, { address, category, seq, watchers }: BlockedChange) => {
  if (!GUARDED_CATEGORIES.has(category) || !(await isInHostMode(deps, address))) return {};
  if (deps.settings.watch.hostAutostop) return autostop(deps, address, seq, watchers);
  const stopTokens = new Map<string, string>();
  for (const conversation of watchers) {
    const token = await createAction(deps.store, {
      kind: HOST_STOP_KIND,
      payload: { address },
      role: "operator",
      conversation,
      createdBy: "watchlist",
      ttlMs: STOP_BUTTON_TTL_MS,
      now: deps.now,
    });
    stopTokens.set(`${conversation.platform}:${conversation.id}`, token);
  }
  return {
    hostLine: `This address is in Host Mode and keeps costing cycles: press Stop Host Mode to stop it (operators).`,
    stopTokens,
  };
};

async function autostop(
  deps: CoreDeps,
  address: string,
  seq: number,
  watchers: readonly ConversationRef[],
): Promise<GuardOutcome> {
  // One stop per change, whichever instance or re-run gets here first.
  if (!(await deps.store.setIfNotExists(AUTOSTOP_KEY(address, seq), "1", AUTOSTOP_MARK_TTL_MS))) {
    return { hostLine: "Host Mode of this address was stopped automatically (OPS_HOST_AUTOSTOP)." };
  }
  const where = watchers[0] ?? WATCHLIST_ITSELF;
  const reply = await stopHost(deps, watchActor(where.platform), where, address);
  const said = spansToText(reply.blocks.flatMap((b) => (b.type === "text" ? b.spans : [])));
  const ok = reply.visibility === "public";
  return {
    hostLine: ok
      ? `Host Mode was stopped automatically (OPS_HOST_AUTOSTOP): ${reply.summary}`
      : `Host Mode could NOT be stopped automatically (OPS_HOST_AUTOSTOP): ${said || reply.summary} Stop it with host stop ${address}.`,
  };
}
