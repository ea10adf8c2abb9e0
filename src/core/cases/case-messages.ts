import { messagesOf } from "../alerts/index.js";
import { appendAudit } from "../audit-log.js";
import type { CoreDeps } from "../deps.js";
import { type ConversationRef, conversationKey } from "../invocation.js";
import type { CaseEvent, CaseRecord } from "./case-record.js";
import { renderCase } from "./case-render.js";

/**
 * A case's messages: posted once per opening in the alert destination, then edited in place on
 * every change through the notifier with `replaces` (the alerts' mechanism: the notify worker
 * records the message id of a reply carrying `alertOf`), never twice for one version.
 */
export async function postCase(deps: CoreDeps, record: CaseRecord): Promise<void> {
  for (const conversation of record.destinations) {
    const reply = await renderCase(deps, record, conversation);
    await deps.notifier.post(
      conversation,
      reply,
      `case:${record.id}:opening:${record.opening}:${conversationKey(conversation)}`,
    );
  }
}

/** Edits every recorded message of the case to its current state, but `skip` (the pressed one). */
export async function refreshCase(deps: CoreDeps, record: CaseRecord, skip?: string): Promise<void> {
  const messages = await messagesOf(deps.store, record.id);
  for (const conversation of record.destinations) {
    const key = conversationKey(conversation);
    const messageId = messages.get(key);
    if (messageId === undefined || messageId === skip) continue;
    const reply = await renderCase(deps, record, conversation);
    await deps.notifier.post(
      conversation,
      { ...reply, replaces: messageId },
      `case:${record.id}:v${record.version}:${key}`,
    );
  }
}

/** Every case event is an audit entry (who, what, which address, the reason); the digest counts them. */
export async function auditCase(
  deps: Pick<CoreDeps, "store">,
  record: CaseRecord,
  event: CaseEvent,
  conversation?: ConversationRef,
): Promise<void> {
  await appendAudit(deps.store, {
    at: new Date(event.at).toISOString(),
    actor: event.byKey ?? "bot",
    conversation: conversation ? conversationKey(conversation) : "alerts",
    verb: `case.${event.what}`,
    address: record.address,
    result: "ok",
    message: `case ${record.id}${event.note ? `: ${event.note}` : ""}`,
  });
}
