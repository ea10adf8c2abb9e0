import { mentionsFor } from "../alerts/index.js";
import type { TrackedContext, TrackedHandler } from "../feature.js";
import type { ConversationRef } from "../invocation.js";
import { platformFacts } from "../platforms.js";
import { code, plain, publicReply, text } from "../reply.js";
import { auditCase, refreshCase } from "./case-messages.js";
import { CASE_TTL_MS, type CaseEvent, readCase, updateCase } from "./case-record.js";

/**
 * The case's SLA: the `case-sla` delayed job (scheduled per opening, keyed by it, like the alerts'
 * `alert-escalate`) escalates a case still open and untaken after OPS_CASE_SLA_MIN, once: a SET NX
 * mark per opening decides it across instances, the notifier's dedup key covers a repeated post.
 */
const ESCALATED_KEY = (id: string, opening: number) => `case:${id}:sla:${opening}`;

type SlaJob = Parameters<TrackedHandler<"case-sla">>[0];

export const caseSlaHandler =
  ({ deps }: TrackedContext): TrackedHandler<"case-sla"> =>
  async (job: SlaJob) => {
    const record = await readCase(deps.store, job.caseId);
    if (record === null || record.state !== "open" || record.opening !== job.opening) return { done: true };
    if (!(await deps.store.setIfNotExists(ESCALATED_KEY(record.id, job.opening), "1", CASE_TTL_MS)))
      return { done: true };
    const minutes = Math.max(1, Math.round((deps.now() - record.openedAt) / 60_000));
    const { oncall } = deps.settings.alerts;
    for (const conversation of record.destinations) {
      const mentions = mentionsFor(oncall, platformFacts(deps.platforms, conversation.platform));
      const who =
        mentions.length > 0 ? [...mentions, plain(": ")] : [plain("Nobody is on call (OPS_ONCALL): ")];
      const line = `Escalated: AML case ${record.id} (${record.address}) open ${minutes} min, nobody took it.`;
      const top: ConversationRef = { platform: conversation.platform, id: conversation.id };
      const pages = mentions.length > 0 ? mentions : [plain("Nobody is on call (OPS_ONCALL)")];
      await deps.notifier.post(
        top,
        {
          ...publicReply(line, [
            text(
              ...who,
              plain("AML case "),
              code(record.id),
              plain(` for ${record.address} has been open ${minutes} min and nobody took it.`),
            ),
          ]),
          pages,
        },
        `case-sla:${record.id}:${job.opening}:${conversation.platform}:${conversation.id}`,
      );
    }
    const event: CaseEvent = {
      what: "escalated",
      at: deps.now(),
      by: "the bot",
      note: `untaken after ${minutes} min`,
    };
    const updated = await updateCase(deps.store, record.id, (c) => ({
      ...c,
      timeline: [...c.timeline, event],
    }));
    if (updated.ok) {
      await auditCase(deps, updated.record, event);
      await refreshCase(deps, updated.record);
    }
    deps.logger.warn({ caseId: record.id }, "AML case escalated: nobody took it in time");
    return { done: true };
  };
