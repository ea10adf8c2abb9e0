import { COMPLIANCE_BATCH_MAX } from "../../service/compliance.js";
import { isServiceError } from "../../service/errors.js";
import type { CommandContext } from "../command.js";
import type { CoreDeps } from "../deps.js";
import { actorKey } from "../invocation.js";
import { errorReply, type Reply } from "../reply.js";
import { whoName } from "../spend/confirmed.js";
import type { WatchArgs } from "./parse.js";

import {
  markBaselineDue,
  readVerdicts,
  readWatches,
  recordOf,
  saveVerdicts,
  saveWatches,
  syncScreen,
  type VerdictRecord,
  type WatchEntry,
} from "./state.js";
import { renderAddedMany } from "./watch-render.js";

/**
 * `watch add T1 T2 …`, or a CSV file shared with `watch add`: many watches in one command. The
 * same records as one `watch add` each, but the conversation's watches and the known verdicts are
 * read once, the writes go a chunk at a time, and the first verdicts of addresses nobody watched
 * yet come from one deny-list batch call per 1000 (not one open lookup each). A batch that fails
 * leaves its addresses to the next tick (`watch:baseline-due`), which sets their verdicts without
 * an alert, as for a single watch.
 */
export async function addMany(
  ctx: CommandContext,
  args: Extract<WatchArgs, { kind: "add-many" }>,
): Promise<Reply> {
  const { deps } = ctx;
  const { actor, conversation } = ctx.invocation;
  if (args.screen && deps.settings.watch.budgetTrx === undefined) {
    return errorReply(
      "AML re-screening is off: OPS_WATCH_BUDGET_TRX is not set. Use watch add <address> <address>… for the free deny-list watch.",
    );
  }
  const existing = await readWatches(deps.store, conversation, args.addresses);
  const now = deps.now();
  const entries = args.addresses.map((address): WatchEntry => {
    const was = existing.get(address);
    const screen = args.screen ?? was?.screen;
    // A file's label replaces the watch's, as a label typed after the address does.
    const label = args.labels?.get(address) ?? was?.label;
    return {
      address,
      ...(label !== undefined && { label }),
      addedBy: was?.addedBy ?? actorKey(actor),
      addedByName: was?.addedByName ?? whoName(actor),
      since: was?.since ?? now,
      ...(screen !== undefined && { screen }),
    };
  });
  await saveWatches(deps.store, conversation, entries);
  if (args.screen) {
    for (let i = 0; i < entries.length; i += COMPLIANCE_BATCH_MAX) {
      await Promise.all(
        entries.slice(i, i + COMPLIANCE_BATCH_MAX).map((e) => syncScreen(deps.store, e.address, now)),
      );
    }
  }
  const verdicts = await baselines(deps, args.addresses);
  return renderAddedMany({
    addresses: args.addresses,
    added: args.addresses.filter((a) => !existing.has(a)).length,
    verdicts,
    ...(args.screen && { screen: args.screen }),
  });
}

/**
 * The verdict each address starts from: the stored one, else the batch lookup's (saved as the
 * baseline). A chunk of 1000 costs one HMGET before its batch call, one after and one HSET.
 */
async function baselines(deps: CoreDeps, addresses: readonly string[]): Promise<Map<string, VerdictRecord>> {
  const out = await readVerdicts(deps.store, addresses);
  const missing = addresses.filter((address) => !out.has(address));
  for (let i = 0; i < missing.length; i += COMPLIANCE_BATCH_MAX) {
    const chunk = missing.slice(i, i + COMPLIANCE_BATCH_MAX);
    let results: Awaited<ReturnType<CoreDeps["service"]["compliance"]["batch"]>>["results"];
    try {
      ({ results } = await deps.service.compliance.batch(chunk));
    } catch (error) {
      if (!isServiceError(error)) throw error;
      deps.logger.warn(
        { err: error, addresses: chunk.length },
        "watch: deny-list batch lookup failed; the next tick sets these first verdicts",
      );
      await Promise.all(chunk.map((address) => markBaselineDue(deps.store, address)));
      continue;
    }
    // Another instance's re-check may have set some meanwhile: theirs stand.
    const theirs = await readVerdicts(deps.store, chunk);
    const byIndex = results.length === chunk.length;
    const firsts: [string, VerdictRecord][] = [];
    for (const [j, verdict] of results.entries()) {
      const address = byIndex ? (chunk[j] ?? verdict.address) : verdict.address;
      if (verdict.category === "invalid") continue;
      const stored = theirs.get(address);
      if (stored) {
        out.set(address, stored);
        continue;
      }
      const record = recordOf(verdict, deps.now(), 0);
      firsts.push([address, record]);
      out.set(address, record);
    }
    await saveVerdicts(deps.store, firsts);
  }
  return out;
}
