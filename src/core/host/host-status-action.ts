import { createAction } from "../actions.js";
import type { ActionHandler } from "../command.js";
import type { CoreDeps } from "../deps.js";
import type { Actor, ConversationRef } from "../invocation.js";
import { errorReply, type Reply } from "../reply.js";
import { lastHostEvent } from "./host-events.js";
import { readHostLedger } from "./host-ledger.js";
import { HOST_STATUS_KIND, hostStatusPayloadSchema } from "./host-payload.js";
import { readHostStatus } from "./host-status.js";
import { renderHostStatus } from "./host-status-render.js";

/**
 * `host status <address>` and the Status button share this: Time Status beside the bot's own
 * record. The button replaces the message it is on with the status, which carries a fresh Status
 * button, so the message stays a status that can be refreshed (a button works once).
 */
const STATUS_BUTTON_TTL_MS = 24 * 60 * 60_000;

export async function createStatusButton(
  deps: Pick<CoreDeps, "store" | "now">,
  conversation: ConversationRef,
  actor: Actor,
  address: string,
): Promise<string> {
  return createAction(deps.store, {
    kind: HOST_STATUS_KIND,
    payload: { address },
    role: "viewer",
    conversation,
    createdBy: actor,
    ttlMs: STATUS_BUTTON_TTL_MS,
    now: deps.now,
  });
}

export async function hostStatusReply(
  deps: CoreDeps,
  where: { conversation: ConversationRef; actor: Actor },
  address: string,
): Promise<Reply> {
  const [reading, ledger, last] = await Promise.all([
    readHostStatus(deps, address),
    readHostLedger(deps.store, address),
    lastHostEvent(deps.store, address),
  ]);
  // Not registered: one clear line, whatever the bot remembers.
  if (!reading.ok && reading.notRegistered) {
    return errorReply(reading.line);
  }
  if (!reading.ok && !ledger) return errorReply(reading.line);
  const ended = ledger && last && last.event !== "started" && last.at >= ledger.run.at ? last : undefined;
  const statusToken = await createStatusButton(deps, where.conversation, where.actor, address);
  return renderHostStatus({
    address,
    reading,
    ledger,
    ...(ended && { ended }),
    now: deps.now(),
    statusToken,
  });
}

export const hostStatusAction: ActionHandler = {
  kind: HOST_STATUS_KIND,
  role: "viewer",
  async run(ctx, payload) {
    const parsed = hostStatusPayloadSchema.safeParse(payload);
    if (!parsed.success) throw new Error(`bad ${HOST_STATUS_KIND} payload: ${parsed.error.message}`);
    const { actor, conversation } = ctx.invocation;
    const reply = await hostStatusReply(ctx.deps, { actor, conversation }, parsed.data.address);
    // The button is spent either way; a refusal line takes the message's place for everyone.
    return { ...reply, visibility: "public" };
  },
};
