import { createHash } from "node:crypto";
import Big from "big.js";
import { isServiceError } from "../../service/errors.js";
import { ORCHESTRATOR_FINAL_STATES, type OrchestratorStatus } from "../../service/orchestrator.js";
import type { CoreDeps } from "../deps.js";
import type { ConversationRef } from "../invocation.js";
import { recordConfirmed } from "../ledger/record.js";
import { forgetOrchestratorExpectation } from "../notices/expectations.js";
import { rememberOrigin } from "../origins.js";
import { type PollAnswer, pollDelayMs } from "../poll.js";
import type { TrackedJob } from "../ports.js";
import { publicReply, type Reply, text } from "../reply.js";
import { sunToTrx, trxToSun } from "../spend/spend-guard.js";
import {
  OUTCOME_LISTED_MAX,
  progressFingerprint,
  renderOutcome,
  renderOutcomeFile,
  renderProgress,
} from "./payout-progress-render.js";
import { firstFinal, type PayoutRun, progressChanged, readCancelled, readRun } from "./payout-run.js";

/**
 * Following a payout run until every address is final: each poll of the status endpoint (through
 * the client's limiter, which holds the orchestrator's 20 requests a second for every instance)
 * remembers the energy and activation order ids as they appear, so their webhooks reach the
 * progress message's thread, and edits the progress message when what it shows changed. The last
 * poll puts the outcome in its place (and, past 10 addresses, the outcome CSV in its thread).
 */
const PAYOUT_FIRST_POLL_MS = 2_000;
const POLL_MAX_MS = 10_000;
const POLL_BUDGET_MS = 6 * 60 * 60_000;
/** How many polls must find no order before the bot says it was never accepted. */
const NOT_FOUND_POLLS = 3;

const payoutJobId = (key: string): string => `poll-payout:${key}`;

type PollJob = Extract<TrackedJob, { kind: "poll-payout" }>;
type Deps = Pick<CoreDeps, "service" | "store" | "notifier" | "logger" | "now" | "settings" | "jobs">;

export async function trackPayout(
  deps: Pick<CoreDeps, "jobs">,
  run: PayoutRun,
  delayMs = PAYOUT_FIRST_POLL_MS,
) {
  await deps.jobs.schedule(
    { kind: "poll-payout", idempotencyKey: run.key, conversation: run.conversation },
    { delayMs, jobId: payoutJobId(run.key) },
  );
}

/** The progress message's place: edited where the platform allows, else a new message. */
function inPlace(run: PayoutRun, reply: Reply): Reply {
  return run.messageId === undefined ? reply : { ...reply, replaces: run.messageId };
}

const isFinal = (status: OrchestratorStatus): boolean =>
  status.data.items.length > 0 && status.data.items.every((i) => ORCHESTRATOR_FINAL_STATES.has(i.status));

async function rememberOrderIds(
  deps: Pick<CoreDeps, "store">,
  status: OrchestratorStatus,
  to: ConversationRef,
) {
  const seenKey = `orchestrator-origins:${status.data.idempotencyKey}`;
  for (const item of status.data.items) {
    // Energy chunks, activation and bandwidth: every order a webhook of the run may name.
    const ids = [
      ...item.energy.orderIds,
      ...(item.activation.orderId ? [item.activation.orderId] : []),
      ...(item.bandwidth.orderId ? [item.bandwidth.orderId] : []),
    ];
    for (const id of ids) {
      if ((await deps.store.setAdd(seenKey, id)) > 0) await rememberOrigin(deps.store, "order", id, to);
    }
  }
}

export interface PollPayoutOptions {
  /** Delay before poll `attempt + 1`, or null to stop. */
  delayMs?: (attempt: number) => number | null;
}

export function createPollPayoutHandler(deps: Deps, options: PollPayoutOptions = {}) {
  const delayFor =
    options.delayMs ??
    ((attempt: number) =>
      pollDelayMs(attempt, { firstMs: PAYOUT_FIRST_POLL_MS, maxMs: POLL_MAX_MS, totalMs: POLL_BUDGET_MS }));

  async function notFound(job: PollJob, run: PayoutRun): Promise<PollAnswer> {
    const attempt = job.attempt ?? 0;
    const again = attempt < NOT_FOUND_POLLS - 1 ? delayFor(attempt) : null;
    if (again !== null) return { again: true, delayMs: again };
    const line = `The orchestrator has no payout run with key ${run.key}: it was never accepted, so nothing was ordered or charged.`;
    await deps.notifier.post(
      run.conversation,
      inPlace(run, publicReply(line, [text(line)])),
      `payout-outcome:${run.key}`,
    );
    await recordConfirmed(deps, {
      kind: "payout",
      confirmationId: run.confirmationId,
      chargedTrx: "0",
      addresses: run.items.length,
      audit: { ...auditOf(run), result: "failed", message: `payout run never accepted (key ${run.key})` },
    });
    return { done: true };
  }

  async function finish(run: PayoutRun, status: OrchestratorStatus): Promise<PollAnswer> {
    const cancel = await readCancelled(deps, run.key);
    await deps.notifier.post(
      run.conversation,
      inPlace(run, renderOutcome(run, status, cancel)),
      `payout-outcome:${run.key}`,
    );
    if (status.data.items.length > OUTCOME_LISTED_MAX) {
      await deps.notifier.post(run.followUp, renderOutcomeFile(status), `payout-csv:${run.key}`);
    }
    if (await firstFinal(deps, run.key)) {
      // The hold becomes what was charged: the energy delivered, at the price decided at Confirm.
      await recordFinal(deps, run, status, chargedTrx(run, status));
    }
    for (const item of status.data.items)
      await forgetOrchestratorExpectation(deps.store, {
        address: item.receiveAddress,
        idempotencyKey: run.key,
      });
    return { done: true };
  }

  return async (job: PollJob): Promise<PollAnswer> => {
    const run = await readRun(deps, job.idempotencyKey);
    if (!run) {
      deps.logger.warn(
        { idempotencyKey: job.idempotencyKey },
        "payout run record is gone; stopped following it",
      );
      return { done: true };
    }
    let status: OrchestratorStatus;
    try {
      status = await deps.service.orchestrator.status(run.key);
    } catch (error) {
      if (!isServiceError(error) || error.httpStatus !== 404) throw error;
      return notFound(job, run);
    }
    // The order exists: its hold (the decided amount) stays until the run is final.
    await rememberOrderIds(deps, status, run.followUp);
    if (isFinal(status)) return finish(run, status);
    const cancel = await readCancelled(deps, run.key);
    const fingerprint = progressFingerprint(status, cancel);
    if (await progressChanged(deps, run.key, fingerprint)) {
      const digest = createHash("sha256").update(fingerprint).digest("hex").slice(0, 16);
      await deps.notifier.post(
        run.conversation,
        inPlace(run, renderProgress({ run, status, cancel })),
        `payout-progress:${run.key}:${digest}`,
      );
    }
    const delayMs = delayFor(job.attempt ?? 0);
    if (delayMs !== null) return { again: true, delayMs };
    const line = `Payout run ${run.key} is still not final; I stopped following it. Its state stays readable on the service under this key.`;
    await deps.notifier.post(run.followUp, publicReply(line, [text(line)]), `payout-outcome:${run.key}`);
    return { done: true };
  };
}

export const auditOf = (run: PayoutRun) => ({
  actor: run.actor,
  conversation: run.conversation,
  verb: "energy",
  amount: String(run.energy),
  quoteTrx: run.quoteTrx,
  addresses: run.items.map((i) => i.address),
});

/**
 * What the service charged for the run's energy: each address's delivered share of its cost at
 * the price decided at Confirm (the status reply names no price), rounded up to the SUN.
 */
function chargedTrx(run: PayoutRun, status: OrchestratorStatus): string {
  let sun = new Big(0);
  for (const item of status.data.items) {
    const index = run.items.findIndex((i) => i.address === item.receiveAddress);
    const cost = run.itemTrx?.[index];
    const requested = item.energy.requested;
    if (requested === 0) continue;
    const share =
      cost === undefined ? trxToSun(run.quoteTrx).div(run.energy).times(requested) : trxToSun(cost);
    sun = sun.plus(share.times(item.energy.delegated).div(requested));
  }
  return sunToTrx(sun.round(0, Big.roundUp));
}

async function recordFinal(
  deps: Deps,
  run: PayoutRun,
  status: OrchestratorStatus,
  charged: string,
): Promise<void> {
  const items = status.data.items;
  const delivered = items.reduce((n, i) => n + i.energy.delegated, 0);
  const requested = items.reduce((n, i) => n + i.energy.requested, 0);
  const counts = new Map<string, number>();
  for (const i of items) counts.set(i.status, (counts.get(i.status) ?? 0) + 1);
  await recordConfirmed(deps, {
    kind: "payout",
    confirmationId: run.confirmationId,
    chargedTrx: charged,
    energy: delivered,
    addresses: items.length,
    // Charged for what it delivered, a partial run too.
    result: delivered > 0 ? "ordered" : "failed",
    audit: {
      ...auditOf(run),
      result: items.every((i) => i.status === "completed") ? "ok" : "failed",
      message: `payout run final (request ${status.data.requestId}, ${items.length} addresses: ${[...counts].map(([s, n]) => `${n} ${s}`).join(", ")}); ${delivered} of ${requested} energy delegated; charged ${charged} TRX`,
      orderIds: items.flatMap((i) => i.energy.orderIds),
    },
  });
}
