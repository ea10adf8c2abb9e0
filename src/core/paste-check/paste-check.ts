import { z } from "zod";
import { createActionGroup } from "../actions.js";
import type { ActionContext, ActionHandler, CommandContext, CommandDefinition } from "../command.js";
import { complianceCommand } from "../compliance/index.js";
import type { CoreDeps } from "../deps.js";
import { energyCommand } from "../energy/index.js";
import type { Actor, ConversationRef } from "../invocation.js";
import { TRON_ADDRESS_PATTERN } from "../parse/tron-address.js";
import { buttons, context, type Reply } from "../reply.js";
import { roleOf } from "../roles.js";
import { screenCommand } from "../screening/index.js";
import { watchCommand } from "../watch/index.js";
import { admitPaste } from "./rate.js";

/**
 * Paste-to-check: a message in a served conversation that is just a TRON address gets its
 * deny-list verdict at once (the free open lookup, rendered as `compliance <address>` renders it),
 * with buttons for what people usually do next: Screen (billed, operators), an Energy 65k quote, and
 * Watch (re-checked here whenever the deny list changes).
 * Anything else is not ours: the adapters hand over plain messages and mentions, and most of them
 * are conversation between people.
 */
export interface PastedMessage {
  actor: Actor;
  conversation: ConversationRef;
  /** The message text, with a mention of the bot already removed by the adapter. */
  text: string;
}

const PASTE_SCREEN_KIND = "paste.screen";
const PASTE_ENERGY_KIND = "paste.energy";
const PASTE_WATCH_KIND = "paste.watch";
/** The energy a plain TRC20 transfer needs: the amount the quote button asks for. */
const PASTE_ENERGY_AMOUNT = "65k";

/** An address alone, possibly in backticks (Slack and Telegram code formatting). */
const PASTED = /^`{0,3}\s*(T[1-9A-HJ-NP-Za-km-z]{33})\s*`{0,3}$/;

/** The address a message consists of, or undefined for any other message. */
function pastedAddress(text: string): string | undefined {
  const address = PASTED.exec(text.trim())?.[1];
  return address !== undefined && TRON_ADDRESS_PATTERN.test(address) ? address : undefined;
}

/** The verdict with its buttons; undefined when the message is not a paste or the flood limit holds. */
export async function checkPaste(deps: CoreDeps, message: PastedMessage): Promise<Reply | undefined> {
  const address = pastedAddress(message.text);
  if (address === undefined) return undefined;
  const admission = await admitPaste(deps, message.conversation);
  if (admission.kind === "silent") return undefined;
  if (admission.kind === "notice") return admission.reply;
  const verdict = await complianceCommand.run(asCommand(deps, message, complianceCommand, [address]));
  // A bad checksum and the like: the compliance command's own one line.
  if (verdict.visibility === "private") return verdict;
  const { tokens } = await createActionGroup(
    deps.store,
    { conversation: message.conversation, createdBy: message.actor, now: deps.now },
    [
      { kind: PASTE_SCREEN_KIND, payload: { address }, role: "operator" },
      { kind: PASTE_ENERGY_KIND, payload: { address }, role: "operator" },
      { kind: PASTE_WATCH_KIND, payload: { address }, role: "operator" },
    ],
  );
  return {
    ...verdict,
    blocks: [
      ...verdict.blocks,
      buttons(
        { label: "Screen (billed)", token: tokens[0] ?? "" },
        { label: "Energy 65k quote", token: tokens[1] ?? "" },
        { label: "Watch", token: tokens[2] ?? "" },
      ),
      context(
        "Screen runs a paid AML check; the quote spends nothing until Confirm; Watch re-checks it here when the deny list changes. All need an operator.",
      ),
    ],
  };
}

/** A command context for `command <args>` typed by whoever pasted or pressed. */
function asCommand(
  deps: CoreDeps,
  who: { actor: Actor; conversation: ConversationRef },
  command: CommandDefinition,
  args: string[],
  subverb?: string,
): CommandContext {
  return {
    invocation: {
      kind: "command",
      actor: who.actor,
      conversation: who.conversation,
      text: [command.verb, ...(subverb === undefined ? [] : [subverb]), ...args].join(" "),
    },
    args,
    ...(subverb !== undefined && { subverb }),
    role: roleOf(who.actor, deps.settings),
    deps,
    commands: [],
  };
}

const payloadSchema = z.object({ address: z.string().regex(TRON_ADDRESS_PATTERN) });

/** A button that runs a command exactly as if its line had been typed by the person who pressed it. */
function runsCommand(
  kind: string,
  command: CommandDefinition,
  extra: string[],
  subverb?: string,
): ActionHandler {
  return {
    kind,
    role: "operator",
    async run(ctx: ActionContext, payload: unknown) {
      const { address } = payloadSchema.parse(payload);
      const who = { actor: ctx.invocation.actor, conversation: ctx.invocation.conversation };
      return command.run(asCommand(ctx.deps, who, command, [address, ...extra], subverb));
    },
  };
}

/** Screen: the same as `screen <address>`. */
export const pasteScreenAction = runsCommand(PASTE_SCREEN_KIND, screenCommand, []);
/** Energy 65k quote: the same as `energy <address> 65k` (a quote with its own Confirm). */
export const pasteEnergyAction = runsCommand(PASTE_ENERGY_KIND, energyCommand, [PASTE_ENERGY_AMOUNT]);
/** Watch: the same as `watch add <address>` in this conversation. */
export const pasteWatchAction = runsCommand(PASTE_WATCH_KIND, watchCommand, [], "add");
