import type { CoreDeps } from "../deps.js";
import type { ConversationRef } from "../invocation.js";
import { type Block, code, context } from "../reply.js";
import { auditCase, postCase, refreshCase } from "./case-messages.js";
import {
  type CaseEvent,
  type CaseRecord,
  CLOSED_STATES,
  caseForAddress,
  claimFinding,
  updateCase,
} from "./case-record.js";

/**
 * A finding about an address (a screening at a case level or sanctioned, a watched address put on
 * the deny list) opens its case, adds to its timeline, or reopens it. Each finding is taken once
 * across instances and restarts (its key, SET NX), so a re-run job or a second instance seeing the
 * same screening changes nothing; two different findings at once land in the one case of the
 * address (`caseForAddress`).
 */
export interface Finding {
  address: string;
  /** Names this finding once: `screen:<client_order_id>`, `deny:<address>:<seq>`. */
  key: string;
  /** What was found, one line: "screening: high (8.4 of 0–10)". */
  what: string;
  /** Where it was found (the line with the case id goes there); unset: nowhere else. */
  foundIn?: ConversationRef;
}

export type FindingOutcome = { id: string; event: "opened" | "finding" | "reopened" } | undefined;

export async function noteFinding(deps: CoreDeps, finding: Finding): Promise<FindingOutcome> {
  if (!(await claimFinding(deps.store, finding.key))) return undefined;
  const now = deps.now();
  const opened: CaseEvent = { what: "opened", at: now, by: "the bot", note: finding.what };
  const { destinations } = deps.settings.cases;
  const { created, record } = await caseForAddress(deps.store, finding.address, (id) => ({
    id,
    address: finding.address,
    state: "open",
    openedAt: now,
    opening: 1,
    version: 0,
    timeline: [opened],
    destinations: [...destinations],
  }));
  if (created) {
    await afterOpening(deps, record, opened, finding.foundIn);
    return { id: record.id, event: "opened" };
  }
  return addFinding(deps, record.id, finding);
}

async function addFinding(deps: CoreDeps, id: string, finding: Finding): Promise<FindingOutcome> {
  const now = deps.now();
  let event: CaseEvent = { what: "finding", at: now, by: "the bot", note: finding.what };
  const result = await updateCase(deps.store, id, (current) => {
    if (!CLOSED_STATES.has(current.state)) return { ...current, timeline: [...current.timeline, event] };
    event = { what: "reopened", at: now, by: "the bot", note: finding.what };
    const { owner: _owner, closedAt: _closed, ...rest } = current;
    return {
      ...rest,
      state: "open",
      opening: current.opening + 1,
      openedAt: now,
      timeline: [...current.timeline, event],
    };
  });
  if (!result.ok) return undefined;
  if (event.what === "reopened") await afterOpening(deps, result.record, event, finding.foundIn);
  else {
    await refreshCase(deps, result.record);
    await auditCase(deps, result.record, event, finding.foundIn);
  }
  return { id, event: event.what === "reopened" ? "reopened" : "finding" };
}

/** A new opening: its message in the alert destination, its SLA job, its audit entry. */
async function afterOpening(
  deps: CoreDeps,
  record: CaseRecord,
  event: CaseEvent,
  foundIn: ConversationRef | undefined,
): Promise<void> {
  await postCase(deps, record);
  const { slaMs } = deps.settings.cases;
  // Without an alert destination there is nowhere to escalate to.
  if (record.destinations.length > 0)
    await deps.jobs.schedule(
      { kind: "case-sla", caseId: record.id, opening: record.opening },
      { delayMs: slaMs, jobId: `case-sla:${record.id}:${record.opening}` },
    );
  await auditCase(deps, record, event, foundIn);
}

/** The one line, where it was found, that names the case. */
export function findingLine(outcome: FindingOutcome): Block[] {
  if (outcome === undefined) return [];
  const said = {
    opened: "opened AML case",
    finding: "added to AML case",
    reopened: "reopened AML case",
  }[outcome.event];
  return [context(`This finding ${said} `, code(outcome.id), " (see ", code(`case ${outcome.id}`), ").")];
}
