import type { App, BlockAction, ButtonAction } from "@slack/bolt";
import type { AdapterCore, Invocation, Logger, Reply } from "../../src/core/index.js";
import type { Delivery, Interaction } from "./deliver.js";
import type { SlackBody } from "./gate.js";
import type { Inflight } from "./inflight.js";
import type { OnceOnly } from "./once-only.js";
import { homeConversationId } from "./platform.js";
import { ACTION_ID_PREFIX, pressedByBlock } from "./render/blocks.js";

/**
 * Button clicks (`block_actions`): the button's `value` is the core's one-time token. The core
 * claims the button (once, for everyone, on every instance; a spending click is stored as a
 * durable intent in the same step), the click is acked right after the claim (at the latest after
 * ACK_GUARD_MS), and the core runs it; the answer then replaces the message that carried the buttons, topped with who pressed
 * what, so the buttons are gone for everyone. Refusals ("Already handled.", a role too low) go
 * only to the user who clicked, and leave the message and its buttons as they were.
 */
export interface ActionListenerOptions {
  core: Pick<AdapterCore, "handle" | "delivered">;
  delivery: Delivery;
  inflight: Inflight;
  /** The once-only mark, awaited before the core claims the button (unset: gated before Bolt). */
  onceOnly?: OnceOnly;
  logger: Logger;
  /** A button that asks first (`Reply.asks`): opens its form as a modal; false when Slack refused. */
  openAsked?: (triggerId: string, asks: NonNullable<Reply["asks"]>, channel: string) => Promise<boolean>;
  /** A button pressed in a user's App Home: its answer is shown by publishing the Home view again. */
  onHomePress?: (user: string, reply: Reply) => Promise<void>;
}

type Click = BlockAction<ButtonAction>;

const str = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined;

function toActionInvocation(body: Click, action: ButtonAction): Extract<Invocation, { kind: "action" }> {
  const threadTs = str(body.message?.thread_ts) ?? str(body.container.thread_ts);
  // An ephemeral message's ts is not bound (Slack does not promise to keep it when it is replaced),
  // and it cannot start a thread: its outcome's follow-ups go to the channel.
  const messageTs = body.container.is_ephemeral === true ? undefined : messageTsOf(body);
  return {
    kind: "action",
    actor: {
      platform: "slack",
      userId: body.user.id,
      ...((body.user.username || body.user.name) && { displayName: body.user.username || body.user.name }),
    },
    conversation: {
      platform: "slack",
      id: channelOf(body),
      ...(threadTs !== undefined && { threadId: threadTs }),
    },
    token: action.value ?? "",
    ...(messageTs !== undefined && { messageId: messageTs }),
  };
}

const messageTsOf = (body: Click): string | undefined =>
  str(body.message?.ts) ?? str(body.container.message_ts);

/** A press in the App Home tab (a view, no channel) belongs to the user's home (`home:<user id>`). */
const inHome = (body: Click): boolean => body.container.type === "view" && body.view?.type === "home";

const channelOf = (body: Click): string =>
  inHome(body)
    ? homeConversationId(body.user.id)
    : (body.channel?.id ?? str(body.container.channel_id) ?? "");

export function registerActions(app: App, options: ActionListenerOptions): void {
  app.action({ type: "block_actions" }, async ({ ack, body, action, context }) => {
    // Buttons of other apps or link buttons: nothing of ours to run.
    if (action.type !== "button" || !action.action_id.startsWith(ACTION_ID_PREFIX)) return ack();
    await options.inflight.run(async () => {
      const acknowledge = once(() => ack());
      // A slow store must not cost the click Slack's 3 seconds: ack anyway, well before.
      const guard = setTimeout(() => void acknowledge().catch(() => {}), ACK_GUARD_MS);
      try {
        // A retry or a second delivery of this click (on any instance), or a store that is down:
        // acked, not run. Otherwise the core claims the button and acks (an acked Confirm is stored).
        if (options.onceOnly && !(await options.onceOnly.mayRun(context, body as unknown as SlackBody)))
          return;
        await runAction(body as Click, action, options, acknowledge);
      } finally {
        clearTimeout(guard);
        await acknowledge().catch(() => {});
      }
    });
  });
}

/** Slack wants the ack within 3 s; the claim usually takes a few milliseconds. */
const ACK_GUARD_MS = 2_000;

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => {
    done ??= fn();
    return done;
  };
}

async function runAction(
  body: Click,
  action: ButtonAction,
  options: ActionListenerOptions,
  acknowledge: () => Promise<void>,
): Promise<void> {
  const invocation = toActionInvocation(body, action);
  if (inHome(body) && options.onHomePress) {
    const reply = await options.core.handle(invocation, { acknowledge });
    await options.onHomePress(body.user.id, reply);
    return;
  }
  const messageTs = messageTsOf(body);
  const target: Interaction = {
    channel: invocation.conversation.id,
    user: body.user.id,
    ...(str(body.response_url) !== undefined && { responseUrl: body.response_url }),
    ...(invocation.conversation.threadId !== undefined && { threadTs: invocation.conversation.threadId }),
    ...(messageTs !== undefined && {
      message: { ts: messageTs, ephemeral: body.container.is_ephemeral === true },
    }),
  };
  try {
    const reply = await options.core.handle(invocation, {
      acknowledge,
      confirmsDelivery: options.core.delivered !== undefined,
    });
    if (
      reply.asks &&
      options.openAsked &&
      (await options.openAsked(body.trigger_id, reply.asks, target.channel))
    )
      return;
    const lead = reply.replacesOriginal ? [pressedByBlock(action.text.text, body.user.id)] : [];
    await options.delivery.answer(target, reply, lead);
    // Only now is a confirmed spend's outcome in the channel; until then its recovery job owes it.
    await options.core.delivered?.(reply);
  } catch (error) {
    options.logger.error(
      { err: error, channel: target.channel },
      "could not deliver the answer to a Slack button",
    );
  }
}
