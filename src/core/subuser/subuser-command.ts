import { ACTION_TTL_MS } from "../actions.js";
import type { CommandDefinition } from "../command.js";
import { errorReply } from "../reply.js";
import { offerQuote } from "../spend/offer-quote.js";
import { subuserDeletion } from "./delete-subuser.js";
import { parseSubuserArgs } from "./subuser-args.js";
import type { SubuserDeletePayload } from "./subuser-payload.js";
import { renderDeleteQuote } from "./subuser-render.js";

/**
 * `subuser delete <user_id>` (admins): says exactly what the service will do and offers the Delete
 * sub-user button (once, in this conversation, for five minutes). Nothing is sent to the service
 * before the button is pressed.
 */
export const subuserCommand: CommandDefinition = {
  verb: "subuser",
  subverbs: ["delete"],
  role: "admin",
  summary: "delete a sub-user (irreversible): a button confirms",
  usage: "subuser delete <user_id>",
  example: "subuser delete 48213",
  async run(ctx) {
    const parsed = parseSubuserArgs(ctx.args);
    if (!parsed.ok) return errorReply(parsed.error);
    const { deps } = ctx;
    const { actor, conversation } = ctx.invocation;
    const payload: SubuserDeletePayload = { userId: parsed.value };
    const createdAt = deps.now();
    const { tokens } = await offerQuote(deps, { conversation, actor }, subuserDeletion, payload);
    return renderDeleteQuote({
      userId: parsed.value,
      tokens,
      expiresAt: createdAt + ACTION_TTL_MS,
      approval: deps.settings.approvalTrx !== undefined,
    });
  },
};
