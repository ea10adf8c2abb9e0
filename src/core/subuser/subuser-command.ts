import { ACTION_TTL_MS, CANCEL_KIND, createActionGroup } from "../actions.js";
import type { CommandDefinition } from "../command.js";
import { errorReply } from "../reply.js";
import { parseSubuserArgs } from "./subuser-args.js";
import { SUBUSER_DELETE_KIND, type SubuserDeletePayload } from "./subuser-payload.js";
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
  summary: "delete a sub-user (irreversible): says what happens, then a button",
  usage: "subuser delete <user_id>",
  example: "subuser delete 48213",
  async run(ctx) {
    const parsed = parseSubuserArgs(ctx.args);
    if (!parsed.ok) return errorReply(parsed.error);
    const { deps } = ctx;
    const { actor, conversation } = ctx.invocation;
    const payload: SubuserDeletePayload = { userId: parsed.value };
    const createdAt = deps.now();
    const { tokens } = await createActionGroup(
      deps.store,
      { conversation, createdBy: actor, now: deps.now },
      [
        { kind: SUBUSER_DELETE_KIND, payload, role: "admin" },
        { kind: CANCEL_KIND, payload: {}, role: "admin" },
      ],
    );
    return renderDeleteQuote({
      userId: parsed.value,
      tokens: { confirm: tokens[0] ?? "", cancel: tokens[1] ?? "" },
      expiresAt: createdAt + ACTION_TTL_MS,
      approval: deps.settings.approvalTrx !== undefined,
    });
  },
};
