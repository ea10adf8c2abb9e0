import Big from "big.js";
import { z } from "zod";
import { isServiceError } from "../../service/errors.js";
import { ORCHESTRATOR_FINAL_STATES, type OrchestratorStatus } from "../../service/orchestrator.js";
import { costTrx } from "../../service/pricing.js";
import { getJson, setJson } from "../../store/store-json.js";
import type { CoreDeps } from "../deps.js";
import type { ConversationRef } from "../invocation.js";
import { recordConfirmed, recordSpend } from "../ledger/record.js";
import { forgetOrchestratorExpectation } from "../notices/expectations.js";
import { rememberOrigin } from "../origins.js";
import { type PollAnswer, pollDelayMs } from "../poll.js";
import type { TrackedJob } from "../ports.js";
import { sunToTrx, trxToSun } from "../pricing/trx.js";
import { publicReply, text } from "../reply.js";
import { noteActive } from "../spend/activation-bound.js";
import type { SpendOutcome } from "../spend/spend-audit.js";
import { renderOrchestratorSummary } from "./energy-render.js";

/**
 * Tracking an orchestrator order until every address is final: each poll remembers the energy
 * and activation order ids as they appear (their webhooks then reach the conversation that placed
 * the order), and the final poll posts one summary. There is no webhook for the order as a whole.
 */

/** What the confirm step knew, for the summary's audit entry. */
const orchestratorContextSchema = z.object({
  actor: z.string(),
  address: z.string(),
  amount: z.number().int(),
  quoteTrx: z.string(),
  /** SUN per energy unit decided at Confirm: delivered energy is recorded at it. */
  unitPriceSun: z.number().optional(),
  /** The confirmation whose spend hold this order settles (absent in contexts stored before holds). */
  confirmationId: z.string().optional(),
  /** The standing order whose run placed it, for the audit. */
  scheduleId: z.string().optional(),
  /** Who asked beside the confirming person (`agent:<name>`). */
  requester: z.string().optional(),
});
export type OrchestratorContext = z.infer<typeof orchestratorContextSchema>;

const CONTEXT_TTL_MS = 3 * 24 * 60 * 60_000;
/** Big orders take a while (50 chunks, external providers' late hashes): poll for up to 6 hours. */
const ORCHESTRATOR_POLL_BUDGET_MS = 6 * 60 * 60_000;
const ORCHESTRATOR_FIRST_POLL_MS = 5_000;
/** How many polls must find no order before the bot says it was never accepted. */
const NOT_FOUND_POLLS = 3;

const contextKey = (key: string): string => `orchestrator-order:${key}`;
const orchestratorJobId = (key: string): string => `poll-orchestrator:${key}`;
const orchestratorDedupKey = (key: string): string => `orchestrator-summary:${key}`;

/** Remembers the order's origin and context and schedules its first poll. */
export async function trackOrchestrator(
  deps: Pick<CoreDeps, "store" | "jobs">,
  order: { idempotencyKey: string; conversation: ConversationRef; context: OrchestratorContext },
  delayMs = ORCHESTRATOR_FIRST_POLL_MS,
): Promise<void> {
  const { idempotencyKey: key, conversation } = order;
  await setJson(deps.store, contextKey(key), order.context, CONTEXT_TTL_MS);
  await rememberOrigin(deps.store, "orchestrator", key, conversation);
  await deps.jobs.schedule(
    { kind: "poll-orchestrator", idempotencyKey: key, conversation },
    { delayMs, jobId: orchestratorJobId(key) },
  );
}

type PollJob = Extract<TrackedJob, { kind: "poll-orchestrator" }>;

export interface PollOrchestratorOptions {
  /** Delay before poll `attempt + 1`, or null to stop. */
  delayMs?: (attempt: number) => number | null;
}

/** Every order id that a webhook may name: energy chunks and activations. */
async function rememberOrderIds(
  deps: Pick<CoreDeps, "store">,
  status: OrchestratorStatus,
  conversation: ConversationRef,
) {
  const ids = new Set<string>();
  for (const item of status.data.items) {
    for (const id of item.energy.orderIds) ids.add(id);
    if (item.activation.orderId) ids.add(item.activation.orderId);
  }
  // A set in the store keeps later polls from rewriting the ids already remembered.
  const seenKey = `orchestrator-origins:${status.data.idempotencyKey}`;
  for (const id of ids) {
    if ((await deps.store.setAdd(seenKey, id)) > 0)
      await rememberOrigin(deps.store, "order", id, conversation);
  }
}

const isFinal = (status: OrchestratorStatus): boolean =>
  status.data.items.length > 0 &&
  status.data.items.every((item) => ORCHESTRATOR_FINAL_STATES.has(item.status));

export function createPollOrchestratorHandler(
  deps: Pick<CoreDeps, "service" | "store" | "notifier" | "logger" | "now" | "settings" | "observer">,
  options: PollOrchestratorOptions = {},
): (job: PollJob) => Promise<PollAnswer> {
  const delayFor =
    options.delayMs ??
    ((attempt: number) =>
      pollDelayMs(attempt, { firstMs: 5_000, maxMs: 60_000, totalMs: ORCHESTRATOR_POLL_BUDGET_MS }));
  const post = (job: PollJob, line: string) =>
    deps.notifier.post(
      job.conversation,
      publicReply(line, [text(line)]),
      orchestratorDedupKey(job.idempotencyKey),
    );

  return async (job) => {
    const key = job.idempotencyKey;
    let status: OrchestratorStatus;
    try {
      status = await deps.service.orchestrator.status(key);
    } catch (error) {
      if (!isServiceError(error) || error.httpStatus !== 404) throw error;
      // A create whose answer was lost may still be on its way: look again before concluding.
      const attempt = job.attempt ?? 0;
      const again = attempt < NOT_FOUND_POLLS - 1 ? delayFor(attempt) : null;
      if (again !== null) return { again: true, delayMs: again };
      await post(
        job,
        `The orchestrator has no order with key ${key}: it was never accepted, so nothing was charged.`,
      );
      const context = await getJson(deps.store, contextKey(key), orchestratorContextSchema);
      if (context?.confirmationId)
        await recordConfirmed(deps, {
          kind: "energy",
          confirmationId: context.confirmationId,
          chargedTrx: "0",
          audit: {
            ...auditOf(context, job),
            result: "failed",
            message: `orchestrator order never accepted (key ${key})`,
          },
        });
      return { done: true };
    }
    await rememberOrderIds(deps, status, job.conversation);
    if (isFinal(status)) {
      await deps.notifier.post(
        job.conversation,
        renderOrchestratorSummary(status, deps.settings.explorerTxUrl),
        orchestratorDedupKey(key),
      );
      await settleFinal(deps, job, status);
      for (const item of status.data.items)
        await forgetOrchestratorExpectation(deps.store, {
          address: item.receiveAddress,
          idempotencyKey: key,
        });
      return { done: true };
    }
    const delayMs = delayFor(job.attempt ?? 0);
    if (delayMs !== null) return { again: true, delayMs };
    deps.logger.warn({ idempotencyKey: key }, "orchestrator order still not final after the polling budget");
    await post(
      job,
      `Orchestrator order ${key} is still not final; I stopped waiting for it. Its state stays readable on the service under this key.`,
    );
    return { done: true };
  };
}

/**
 * What the service charged for the order's energy: the energy delivered at the unit price decided
 * at Confirm (the status reply names no price); without that price, the quote in proportion.
 */
function chargedTrx(context: OrchestratorContext, status: OrchestratorStatus): string {
  const items = status.data.items;
  const delivered = items.reduce((n, i) => n + i.energy.delegated, 0);
  const requested = items.reduce((n, i) => n + i.energy.requested, 0);
  if (context.unitPriceSun !== undefined) return costTrx(context.unitPriceSun, delivered);
  if (requested === 0) return "0";
  return sunToTrx(trxToSun(context.quoteTrx).times(delivered).div(requested).round(0, Big.roundUp));
}

const auditOf = (context: OrchestratorContext, job: PollJob): Omit<SpendOutcome, "result"> => ({
  actor: context.actor,
  conversation: job.conversation,
  verb: "energy",
  address: context.address,
  amount: String(context.amount),
  quoteTrx: context.quoteTrx,
  ...(context.scheduleId !== undefined && { schedule: context.scheduleId }),
  ...(context.requester !== undefined && { requester: context.requester }),
});

/**
 * The order is final: its ledger entry says what was charged (once, whichever poll gets here), and
 * the hold settles at it, so the digest, the daily total and the runway count the charge.
 */
async function settleFinal(
  deps: Pick<CoreDeps, "store" | "now" | "logger" | "observer" | "settings">,
  job: PollJob,
  status: OrchestratorStatus,
): Promise<void> {
  const context = await getJson(deps.store, contextKey(job.idempotencyKey), orchestratorContextSchema);
  const items = status.data.items;
  const delivered = items.reduce((n, i) => n + i.energy.delegated, 0);
  const requested = items.reduce((n, i) => n + i.energy.requested, 0);
  const charged = context ? chargedTrx(context, status) : "0";
  // Active now, or found active by the probe: its next orders hold no activation fee.
  for (const item of status.data.items)
    if (item.activation.status === "done" || item.activation.status === "not_needed")
      await noteActive(deps.store, item.receiveAddress);
  const audit: SpendOutcome = {
    ...(context
      ? auditOf(context, job)
      : { actor: "unknown", conversation: job.conversation, verb: "energy" }),
    result: items.every((i) => i.status === "completed") ? "ok" : "failed",
    message: `orchestrator final: ${items.map((i) => i.status).join(",")}; ${delivered} of ${requested} energy delegated; charged ${charged} TRX`,
    orderIds: items.flatMap((i) => i.energy.orderIds),
  };
  const outcome = {
    chargedTrx: charged,
    energy: delivered,
    // Charged for what it delivered, a partial order too.
    result: delivered > 0 ? ("ordered" as const) : ("failed" as const),
    audit,
  };
  if (context?.confirmationId) {
    await recordConfirmed(deps, { kind: "energy", confirmationId: context.confirmationId, ...outcome });
    return;
  }
  await recordSpend(deps, {
    id: `orchestrator:${job.idempotencyKey}`,
    kind: "energy",
    actor: audit.actor as string,
    requester: audit.actor as string,
    ...(audit.address !== undefined && { address: audit.address }),
    chargedTrx: charged,
    result: outcome.result,
    orderIds: audit.orderIds ?? [],
    detail: audit.message ?? "",
    energy: delivered,
    audit,
  });
}
