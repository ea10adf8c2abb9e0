import type { App, SlashCommand } from "@slack/bolt";
import type { AdapterCore, FormOffer, Invocation, Logger } from "../../src/core/index.js";
import type { Delivery, Interaction } from "./deliver.js";
import type { Inflight } from "./inflight.js";
import type { OnceOnly } from "./once-only.js";
import { ranByBlock } from "./render/blocks.js";
import type { ResponseUrls } from "./response-url.js";

/**
 * Slash commands: every verb of the registry (`/energy …`) and the umbrella `/ops <verb> …` reach
 * one listener, which acks at once (Slack allows 3 seconds; a screening may take 15) and hands the
 * line to the core. The core's registry is the grammar, so this file knows no verb: a command the
 * registry lacks gets the core's "unknown command" line.
 */
export interface CommandListenerOptions {
  /** `formFor`: a form instead of a usage line for a command typed without arguments (`/energy`). */
  core: Pick<AdapterCore, "handle" | "formFor">;
  /** Opens a form as a modal; false when Slack refused (the command then runs as typed). */
  openForm?(
    triggerId: string,
    offer: Extract<FormOffer, { kind: "form" }>,
    channel: string,
  ): Promise<boolean>;
  delivery: Delivery;
  responses: ResponseUrls;
  inflight: Inflight;
  /** The once-only mark, awaited after the ack (unset: the request was gated before Bolt). */
  onceOnly?: OnceOnly;
  logger: Logger;
  /** After this long without an answer, the user privately sees "Working on it…" (0: never). */
  workingNoticeMs: number;
}

export const DEFAULT_WORKING_NOTICE_MS = 2_500;

/** `/energy T… 65k` → `energy T… 65k`; `/ops energy …` → `ops energy …` (the parser knows `ops`). */
const commandLine = (command: Pick<SlashCommand, "command" | "text">): string =>
  `${command.command.replace(/^\//, "")} ${command.text ?? ""}`.trim();

function toCommandInvocation(command: SlashCommand): Extract<Invocation, { kind: "command" }> {
  return {
    kind: "command",
    actor: {
      platform: "slack",
      userId: command.user_id,
      ...(command.user_name && { displayName: command.user_name }),
    },
    conversation: { platform: "slack", id: command.channel_id },
    text: commandLine(command),
  };
}

export function registerCommands(app: App, options: CommandListenerOptions): void {
  app.command(/.*/, async ({ command, ack, context }) => {
    // Counted as in flight before the ack, so shutdown and tests never miss the work after it.
    await options.inflight.run(async () => {
      await ack();
      // A retry, the same command on another instance, or a store that is down: acked, not run.
      if (options.onceOnly && !(await options.onceOnly.mayRun(context, command))) return;
      await runCommand(command, options);
    });
  });
}

async function runCommand(command: SlashCommand, options: CommandListenerOptions): Promise<void> {
  const target: Interaction = {
    channel: command.channel_id,
    user: command.user_id,
    responseUrl: command.response_url,
  };
  const invocation = toCommandInvocation(command);
  if (await answeredWithForm(command, invocation, target, options)) return;
  const notice = workingNotice(command, options);
  try {
    const reply = await options.core.handle(invocation);
    notice.cancel();
    const lead =
      reply.visibility === "public" ? [ranByBlock(`/${commandLine(command)}`, command.user_id)] : [];
    await options.delivery.answer(target, reply, lead);
  } catch (error) {
    // core.handle never throws; this is Slack refusing the answer twice and the queue being down.
    options.logger.error(
      { err: error, channel: command.channel_id, command: command.command },
      "could not deliver the answer to a Slack command",
    );
  } finally {
    notice.cancel();
  }
}

/** `/energy` alone: a modal to fill in (or the refusal line for a role that cannot run it). */
async function answeredWithForm(
  command: SlashCommand,
  invocation: Extract<Invocation, { kind: "command" }>,
  target: Interaction,
  options: CommandListenerOptions,
): Promise<boolean> {
  const offer = options.core.formFor?.(invocation);
  if (offer === undefined || options.openForm === undefined) return false;
  try {
    if (offer.kind === "refused") await options.delivery.answer(target, offer.reply);
    else return await options.openForm(command.trigger_id, offer, command.channel_id);
  } catch (error) {
    options.logger.error({ err: error, channel: command.channel_id }, "could not answer a Slack command");
  }
  return true;
}

/** A private "Working on it…" when the answer takes longer than Slack users wait without a sign. */
function workingNotice(command: SlashCommand, options: CommandListenerOptions): { cancel(): void } {
  if (options.workingNoticeMs <= 0 || !options.responses.allows(command.response_url)) return { cancel() {} };
  const timer = setTimeout(() => {
    const text = "Working on it…";
    options.responses
      .post(command.response_url, { text, response_type: "ephemeral", replace_original: false })
      .catch(() => {});
  }, options.workingNoticeMs);
  timer.unref();
  return { cancel: () => clearTimeout(timer) };
}
