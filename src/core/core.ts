import type { ActionRecord } from "./action-record.js";
import { claimAction, releaseClaim } from "./actions.js";
import { NotCarriedOut, STILL_WORKS_LINE } from "./buttons/not-carried-out.js";
import type { PressedIn } from "./buttons/place.js";
import { type ActionHandler, type CommandDefinition, roleNeeded } from "./command.js";
import type { CoreDeps } from "./deps.js";
import { reportError } from "./errors.js";
import { type FormOffer, formFor } from "./forms/index.js";
import type { Intent, Lease } from "./intents/index.js";
import {
  handOverIntent,
  intentDelivered,
  maxLocalRunsOf,
  prepareIntent,
  runIntent,
} from "./intents/index.js";
import { actorKey, conversationKey, type Invocation } from "./invocation.js";
import type { HandledEvent } from "./observer.js";
import { parseCommandLine } from "./parse/tokenize.js";
import { checkPaste, type PastedMessage } from "./paste-check/index.js";
import { errorReply, type Reply, text } from "./reply.js";
import { can, refusalLine, roleOf } from "./roles.js";

type CommandInvocation = Extract<Invocation, { kind: "command" }>;
type ActionInvocation = Extract<Invocation, { kind: "action" }>;
/** A durable action's reply waiting for the adapter to confirm its delivery. */
interface Undelivered {
  confirmationId: string;
  lease: Lease;
}
/** A reply and what the observer is told about it. */
type Handled = { reply: Reply; undelivered?: Undelivered } & Omit<HandledEvent, "kind">;

interface HandleHooks {
  /**
   * Called once a button click is claimed (a durable action's intent stored with the claim) or
   * refused, before it runs: the adapter acknowledges the platform here, so an acknowledged
   * Confirm is never lost with the process.
   */
  acknowledge?: () => Promise<void>;
  /**
   * The adapter calls `core.delivered(reply)` once the reply is in the conversation; until then
   * a durable action's outcome stays owed and its recovery job posts it if the process dies.
   * Unset: the outcome counts as delivered when `handle` returns.
   */
  confirmsDelivery?: boolean;
}

export interface CoreRegistry {
  commands: readonly CommandDefinition[];
  actions: readonly ActionHandler[];
}

export interface Core {
  /** Runs one command line or one button press; never throws: every failure is a reply. */
  handle(invocation: Invocation, hooks?: HandleHooks): Promise<Reply>;
  /** The reply `handle` returned reached the conversation (see `HandleHooks.confirmsDelivery`). */
  delivered(reply: Reply): Promise<void>;
  /**
   * A plain message (not a command) in a served conversation: a pasted TRON address gets its
   * deny-list verdict; anything else, undefined (the adapter posts nothing). Never throws.
   */
  handleMessage(message: PastedMessage): Promise<Reply | undefined>;
  /** The form to open instead of running a command typed without its arguments (`/energy`). */
  formFor(invocation: CommandInvocation): FormOffer | undefined;
  readonly commands: readonly CommandDefinition[];
}

/**
 * The core as a chat adapter sees it, the one view every adapter (and each of its parts) takes:
 * `handle` always; the rest may be left out (a test's core that only handles; no forms, no
 * paste-check). A part that needs more says so with `Required<Pick<AdapterCore, …>>`.
 */
export type AdapterCore = Pick<Core, "handle"> & Partial<Omit<Core, "handle">>;

/** The platform-neutral bot: parse → authorize → run, and buttons claimed once. */
export function createCore(deps: CoreDeps, registry: CoreRegistry): Core {
  const byVerb = indexCommands(registry.commands);
  const handlers = indexActions(registry.actions);

  async function handleCommand(invocation: CommandInvocation): Promise<Handled> {
    // The registry is the grammar: the parser resolves aliases, `/ops <verb>` and subverbs, and
    // words the unknown verbs and subverbs with a "did you mean".
    const parsed = parseCommandLine(invocation.text, registry.commands);
    if (!parsed.ok) return { reply: errorReply(parsed.error), verb: "unknown", outcome: "invalid" };
    const { verb, subverb, args } = parsed.value;
    const command = byVerb.get(verb);
    if (!command) throw new Error(`the parser accepted "${verb}", which the registry does not have`);
    const role = roleOf(invocation.actor, deps.settings);
    const needed = roleNeeded(command, subverb);
    if (!can(role, needed)) {
      const what = needed === command.role ? command.verb : `${command.verb} ${subverb}`;
      const reply = errorReply(refusalLine(what, needed, role, invocation.actor));
      return { reply, verb: command.verb, outcome: "denied" };
    }
    const context = {
      actor: actorKey(invocation.actor),
      conversation: conversationKey(invocation.conversation),
      verb: command.verb,
    };
    deps.logger.debug(context, "command");
    try {
      const reply = await command.run({
        invocation,
        args,
        ...(subverb !== undefined && { subverb }),
        role,
        deps,
        commands: registry.commands,
      });
      return { reply, verb: command.verb, outcome: "ok" };
    } catch (error) {
      return {
        reply: errorReply(reportError(deps.logger, error, context)),
        verb: command.verb,
        outcome: "failed",
      };
    }
  }

  async function handleAction(invocation: ActionInvocation, hooks: HandleHooks): Promise<Handled> {
    const role = roleOf(invocation.actor, deps.settings);
    let intent: string | undefined;
    const claim = await claimAction(deps.store, invocation.token, invocation.actor, role, {
      now: deps.now,
      roleForKind: (kind) => handlers.get(kind)?.role,
      beforeClaim: async (record) => {
        if (!handlers.get(record.kind)?.durable) return undefined;
        intent = await prepareIntent(deps, record, invocation, role);
        return intent;
      },
      pressedIn: pressedIn(invocation),
    });
    await acknowledge(hooks);
    if (!claim.ok) return { reply: errorReply(claim.line), verb: "unknown", outcome: "refused" };
    const { record } = claim;
    const context = {
      actor: actorKey(invocation.actor),
      conversation: conversationKey(invocation.conversation),
      action: record.kind,
      confirmationId: record.confirmationId,
    };
    deps.logger.debug(context, "action claimed");
    const handler = handlers.get(record.kind);
    if (handler?.durable && intent !== undefined) {
      return handleDurable(handler, JSON.parse(intent) as Intent);
    }
    try {
      if (!handler) throw new Error(`no handler for action kind "${record.kind}"`);
      const reply = await handler.run({ invocation, role, deps, record }, record.payload);
      // A button that asks first (a reason): nothing was done, so it stays usable.
      if (reply.asks) {
        await releaseClaim(deps.store, record.confirmationId);
        return { reply, verb: record.kind, outcome: "ok" };
      }
      return { reply: { ...reply, replacesOriginal: true }, verb: record.kind, outcome: "ok" };
    } catch (error) {
      if (error instanceof NotCarriedOut) return notCarriedOut(record, error, context);
      // The button is spent: the message that carried it is replaced, for everyone, by the outcome.
      const line = reportError(deps.logger, error, context);
      const reply: Reply = {
        summary: line,
        blocks: [text(line)],
        visibility: "public",
        replacesOriginal: true,
      };
      return { reply, verb: record.kind, outcome: "failed" };
    }
  }

  /** Nothing was done: the button is freed for a second try, and only the presser is told. */
  async function notCarriedOut(
    record: ActionRecord,
    error: NotCarriedOut,
    context: Record<string, unknown>,
  ): Promise<Handled> {
    deps.logger.info({ ...context, line: error.line }, "action not carried out; its button stays usable");
    const freed = await releaseClaim(deps.store, record.confirmationId).then(
      () => true,
      (releaseError: unknown) => {
        deps.logger.warn(
          { ...context, err: releaseError },
          "could not free the button of an action not carried out",
        );
        return false;
      },
    );
    const line = freed ? `${error.line} ${STILL_WORKS_LINE}` : error.line;
    return { reply: errorReply(line), verb: record.kind, outcome: "failed" };
  }

  async function acknowledge(hooks: HandleHooks): Promise<void> {
    try {
      await hooks.acknowledge?.();
    } catch (error) {
      deps.logger.warn({ err: error }, "could not acknowledge a button click");
    }
  }

  /** Durable runs in this process between their click and their outcome. */
  let localRuns = 0;

  async function handleDurable(handler: ActionHandler, intent: Intent): Promise<Handled> {
    await deps.faults?.("after-claim");
    if (localRuns >= maxLocalRunsOf(deps)) {
      const reply = await handOverIntent(deps, intent);
      return { reply: { ...reply, replacesOriginal: true }, verb: intent.kind, outcome: "ok" };
    }
    localRuns += 1;
    const run = await runIntent(deps, handler, intent).finally(() => {
      localRuns -= 1;
    });
    if (run === undefined) {
      const line = "This confirmation is already being carried out; its outcome will be posted here.";
      return { reply: errorReply(line), verb: intent.kind, outcome: "refused" };
    }
    // From here the lease only covers the delivery: if the adapter never confirms it (a crash,
    // a refused post), the lease lapses and the recovery job posts the stored outcome.
    await run.lease.lapse();
    await deps.faults?.("before-reply");
    return {
      reply: { ...run.reply, replacesOriginal: true },
      verb: intent.kind,
      outcome: run.failed ? "failed" : "ok",
      undelivered: { confirmationId: intent.confirmationId, lease: run.lease },
    };
  }

  /** Durable outcomes handed to an adapter that will confirm their delivery. */
  const owed = new WeakMap<Reply, Undelivered>();

  return {
    commands: registry.commands,
    formFor: (invocation) => formFor(invocation, registry.commands, deps.settings),
    async handleMessage(message) {
      try {
        return await checkPaste(deps, message);
      } catch (error) {
        const line = reportError(deps.logger, error, { actor: actorKey(message.actor), kind: "paste" });
        return errorReply(line);
      }
    },
    async delivered(reply) {
      const undelivered = owed.get(reply);
      if (undelivered === undefined) return;
      owed.delete(reply);
      await deps.faults?.("after-reply");
      await intentDelivered(deps, undelivered.confirmationId, undelivered.lease, reply).catch(
        (error: unknown) =>
          deps.logger.warn({ err: error }, "could not mark a confirmed action's outcome as delivered"),
      );
    },
    async handle(invocation, hooks = {}) {
      let handled: Handled;
      try {
        handled =
          invocation.kind === "command"
            ? await handleCommand(invocation)
            : await handleAction(invocation, hooks);
      } catch (error) {
        // The store or the parser failed outside any command: still one line, never a throw.
        const line = reportError(deps.logger, error, {
          actor: actorKey(invocation.actor),
          kind: invocation.kind,
        });
        handled = { reply: errorReply(line), verb: "unknown", outcome: "failed" };
      }
      const { reply, undelivered, ...event } = handled;
      if (undelivered !== undefined) {
        if (hooks.confirmsDelivery) owed.set(reply, undelivered);
        else
          await intentDelivered(deps, undelivered.confirmationId, undelivered.lease, reply).catch(() => {});
      }
      try {
        deps.observer?.handled?.({ kind: invocation.kind, ...event });
      } catch {
        // Metrics never change what the user gets.
      }
      return reply;
    },
  };
}

/** Where a button was pressed, for the check that it belongs there (src/core/buttons/place.ts). */
const pressedIn = (invocation: ActionInvocation): PressedIn => ({
  conversation: invocation.conversation,
  ...(invocation.messageId !== undefined && { messageId: invocation.messageId }),
});

function indexCommands(commands: readonly CommandDefinition[]): Map<string, CommandDefinition> {
  const byVerb = new Map<string, CommandDefinition>();
  for (const command of commands) {
    for (const name of [command.verb, ...(command.aliases ?? [])]) {
      if (byVerb.has(name)) throw new Error(`two commands answer to "${name}"`);
      byVerb.set(name, command);
    }
  }
  return byVerb;
}

function indexActions(actions: readonly ActionHandler[]): Map<string, ActionHandler> {
  const byKind = new Map<string, ActionHandler>();
  for (const action of actions) {
    if (byKind.has(action.kind)) throw new Error(`two action handlers for kind "${action.kind}"`);
    byKind.set(action.kind, action);
  }
  return byKind;
}
