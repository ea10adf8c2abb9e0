import { type ActionItem, CANCEL_KIND, createActionGroup } from "../actions.js";
import type { CoreDeps } from "../deps.js";
import type { Actor, ConversationRef } from "../invocation.js";
import { type Requester, tell } from "../spend-lifecycle.js";
import type { AnyDefinition } from "./definition.js";

type Deps = CoreDeps;

/**
 * The quote's Confirm and Cancel buttons (one group, once, in this conversation): the Confirm
 * carries the payload and, when someone other than the confirming person asked, the requester.
 */
export interface OfferOptions {
  /** Who asked, when not the person who will confirm (an agent, a schedule). */
  requester?: Requester;
  /** The confirmation of the quote this one is shown in place of (a price rise). */
  replaces?: string;
  /**
   * Other choices offered beside this Confirm in the same once-only group (a click on any one ends
   * them all): `energy … cheapest` offers "Schedule at HH:MM" beside "Order now".
   */
  alongside?: readonly ActionItem[];
}

export async function offerQuote(
  deps: Pick<Deps, "store" | "now" | "logger" | "spendLifecycle">,
  at: { conversation: ConversationRef; actor: Actor | string },
  def: AnyDefinition,
  payload: unknown,
  options: OfferOptions = {},
): Promise<{ confirmationId: string; tokens: { confirm: string; cancel: string; alongside: string[] } }> {
  const { requester, replaces, alongside = [] } = options;
  const role = def.kind === "spend" ? "operator" : def.role;
  const confirm = requester === undefined ? payload : { ...(payload as object), requester };
  const { confirmationId, tokens } = await createActionGroup(
    deps.store,
    { conversation: at.conversation, createdBy: at.actor, now: deps.now },
    [
      { kind: def.confirmKind, payload: confirm, role },
      ...alongside,
      // Cancel says which spend it ends, so the lifecycle hook hears of it (src/core/actions.ts).
      { kind: CANCEL_KIND, payload: { spend: def.name, ...(requester && { requester }) }, role },
    ],
  );
  const quoteTrx = def.kind === "spend" ? { quoteTrx: def.quoteTrx(payload) } : {};
  await tell(deps, {
    spend: def.name,
    confirmationId,
    ...(requester && { requester }),
    status: "quoted",
    ...quoteTrx,
    ...(replaces !== undefined && { replaces }),
  });
  const cancel = tokens[alongside.length + 1] ?? "";
  return { confirmationId, tokens: { confirm: tokens[0] ?? "", cancel, alongside: tokens.slice(1, -1) } };
}
