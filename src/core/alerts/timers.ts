import type { CoreDeps } from "../deps.js";
import type { TrackedContext, TrackedHandler } from "../feature.js";
import { type ConversationRef, conversationKey } from "../invocation.js";
import { platformFacts } from "../platforms.js";
import type { PlatformFacts } from "../ports.js";
import { link, plain, publicReply, type Span, text } from "../reply.js";
import { ALERT_TTL_MS, type AlertRecord, messagesOf, readAlert, updateAlert } from "./alert.js";
import { reraiseAlert } from "./raise.js";
import { opButtons, opsFor } from "./render.js";

/**
 * The alert's delayed jobs, keyed by the alert (src/core/alerts/raise.ts schedules them): the
 * escalation after OPS_ESCALATE_MIN, and the end of a snooze. A job id makes scheduling once; a
 * mark in the store (SET NX) makes the escalation post once even when a job runs twice (a retry
 * after a crash, a second round after a snooze); the notifier's dedup key covers a repeat of the
 * post itself.
 */
const ESCALATED_KEY = (id: string) => `alert:${id}:escalated`;

/** The mentions of OPS_ONCALL that a conversation's platform can show. */
export function mentionsFor(oncall: readonly string[], facts: PlatformFacts): Span[] {
  const spans: Span[] = [];
  for (const entry of oncall) {
    const [where, who = ""] = [entry.slice(0, entry.indexOf(":")), entry.slice(entry.indexOf(":") + 1)];
    if (where !== facts.platform || who === "") continue;
    spans.push(facts.mention(who));
  }
  return spans.flatMap((s, i) => (i === 0 ? [s] : [plain(" "), s]));
}

export async function escalate(deps: CoreDeps, id: string): Promise<"escalated" | "not needed"> {
  const alert = await readAlert(deps.store, id);
  if (alert === null || alert.state !== "open") return "not needed";
  if ((await deps.store.get(ESCALATED_KEY(id))) !== null) return "not needed";
  // Posted before the mark: a crash in between posts again on the job's retry, and the notifier's
  // dedup key (one per alert and conversation) keeps that, and a second instance, to one message.
  const messages = await messagesOf(deps.store, id);
  const { oncall } = deps.settings.alerts;
  for (const conversation of alert.destinations) {
    const messageId = messages.get(conversationKey(conversation));
    const reply = await escalationReply(deps, alert, conversation, oncall, messageId);
    // Seen by the whole channel, not inside an order's thread, and answering the alert's message
    // where the platform links them that way (a Telegram reply).
    const top: ConversationRef = { platform: conversation.platform, id: conversation.id };
    const where = platformFacts(deps.platforms, conversation.platform).visibleAnswer(top, messageId);
    await deps.notifier.post(where, reply, `alert-escalate:${id}:${conversationKey(conversation)}`);
  }
  if (!(await deps.store.setIfNotExists(ESCALATED_KEY(id), String(deps.now()), ALERT_TTL_MS))) {
    return "not needed";
  }
  await updateAlert(deps.store, id, (a) => ({
    ...a,
    history: [...a.history, { what: "escalated", at: deps.now(), by: "the bot" }],
  }));
  deps.logger.warn({ alertId: id, kind: alert.kind }, "alert escalated: nobody acknowledged it in time");
  return "escalated";
}

async function escalationReply(
  deps: CoreDeps,
  alert: AlertRecord,
  conversation: ConversationRef,
  oncall: readonly string[],
  messageId: string | undefined,
) {
  const minutes = Math.max(1, Math.round((deps.now() - alert.raisedAt) / 60_000));
  const mentions = mentionsFor(oncall, platformFacts(deps.platforms, conversation.platform));
  // The conversation the alert was told in (its thread too), though the escalation goes to the channel.
  const href =
    messageId === undefined
      ? undefined
      : deps.chats?.get(conversation.platform)?.messageLink?.(conversation, messageId);
  const name: Span = href ? link(`alert ${alert.id}`, href) : plain(`alert ${alert.id}`);
  const who: Span[] =
    mentions.length > 0 ? [...mentions, plain(": ")] : [plain("Nobody is on call (OPS_ONCALL): ")];
  const line = `Escalated: ${alert.title} — open ${minutes} min, not acknowledged.`;
  const controls = await opButtons(deps, conversation, [alert.id], opsFor(alert));
  return publicReply(line, [
    text(...who, name, plain(` has been open for ${minutes} min and nobody acknowledged it: ${alert.title}`)),
    ...controls,
  ]);
}

type EscalateJob = Parameters<TrackedHandler<"alert-escalate">>[0];
type UnsnoozeJob = Parameters<TrackedHandler<"alert-unsnooze">>[0];

export const escalateHandler =
  ({ deps }: TrackedContext): TrackedHandler<"alert-escalate"> =>
  async (job: EscalateJob) => {
    await escalate(deps, job.alertId);
    return { done: true };
  };

export const unsnoozeHandler =
  ({ deps }: TrackedContext): TrackedHandler<"alert-unsnooze"> =>
  async (job: UnsnoozeJob) => {
    await reraiseAlert(deps, job.alertId, job.until);
    return { done: true };
  };
