import { randomBytes } from "node:crypto";
import type { CoreDeps } from "../deps.js";
import { timingsOf } from "./durable.js";
import { forgetOpen, isPosted, openIntents, readIntent } from "./intent.js";

/**
 * Recovery as soon as an instance is up. A click's own recovery job is delayed (`recoverAfterMs`,
 * 30 s) so that it never competes with a live run; after a kill -9 and a restart that delay alone
 * made the first word in the channel come ~30 s after the click. At start, every confirmation
 * still open (claimed, not posted) gets a recovery job due now. That job runs the intent only
 * under its lease: a live holder (another instance) renews it every third of `leaseMs` and keeps
 * it, so nothing runs twice; a dead holder's lapses within `leaseMs` (seconds), and the job,
 * looking again every quarter of it, takes it over then.
 */
/** A confirmation noted open this recently may not be claimed yet (its click is being handled). */
const UNCLAIMED_GRACE_MS = 10 * 60_000;

/** Schedules the recovery of every open confirmation, due now; returns how many. */
export async function recoverOpenIntents(deps: CoreDeps): Promise<number> {
  const boot = randomBytes(6).toString("hex");
  const { leaseMs } = timingsOf(deps);
  let scheduled = 0;
  for (const [cid, notedAt] of await openIntents(deps.store)) {
    if (await isPosted(deps.store, cid)) {
      await forgetOpen(deps.store, cid);
      continue;
    }
    const intent = await readIntent(deps.store, cid);
    if (intent === undefined) {
      // Never claimed (another button of its group won), or gone with its TTL.
      if (deps.now() - notedAt > UNCLAIMED_GRACE_MS) await forgetOpen(deps.store, cid);
      continue;
    }
    const conversation = intent.invocation.conversation;
    await deps.jobs.schedule(
      { kind: "recover-intent", confirmationId: cid, conversation },
      { delayMs: 0, jobId: `recover-intent:${cid}:start:${boot}` },
    );
    deps.logger.info(
      { confirmationId: cid, action: intent.kind, delayMs: 0, leaseMs },
      "an open confirmation is recovered at start: carried out once its run's lease is free",
    );
    scheduled += 1;
  }
  return scheduled;
}
