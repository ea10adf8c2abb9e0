import { COMPLIANCE_BATCH_MAX, type ComplianceVerdict } from "../../service/compliance.js";
import { clearAlertOf, raiseAlert } from "../alerts/index.js";
import { findingLine, noteFinding } from "../cases/index.js";
import type { CoreDeps } from "../deps.js";
import { type ConversationRef, conversationKey } from "../invocation.js";
import { type OnBlocked, runOnBlocked } from "./on-blocked.js";
import {
  baselinesDue,
  clearBaselinesDue,
  readState,
  readVerdicts,
  readWatch,
  recordOf,
  saveState,
  saveVerdict,
  saveVerdicts,
  type VerdictRecord,
  watchedAddresses,
  watchersOf,
} from "./state.js";
import { renderChange } from "./watch-render.js";

/**
 * The free deny-list watch. Each tick reads `stats` (one open call); when its `revision` differs
 * from the one last re-checked, or a day has passed, every watched address goes through the batch
 * lookup (1000 per call) and each verdict change is posted to the watching conversations.
 *
 * Never twice: a change gets the next `seq` of its address, and its notification's dedup key
 * carries that `seq`, so a re-run after a crash (before the new verdict or the revision was
 * stored) finds the same change with the same key and the notifier drops the repeat; the verdict
 * is stored after the alert was queued, and the revision only after every address was re-checked,
 * so a restart in between re-checks again instead of missing a change.
 */
const FULL_RECHECK_MS = 24 * 3_600_000;

export interface RecheckResult {
  revision: number;
  checked: number;
  changed: number;
  batches: number;
  skipped: boolean;
}

export async function recheckDenyList(
  deps: CoreDeps,
  onBlocked: readonly OnBlocked[],
): Promise<RecheckResult> {
  const stats = await deps.service.compliance.stats();
  const state = await readState(deps.store);
  const now = deps.now();
  const fresh = state.checkedAt !== undefined && now - state.checkedAt < FULL_RECHECK_MS;
  if (state.revision === stats.revision && fresh) {
    return { revision: stats.revision, checked: 0, changed: 0, batches: 0, skipped: true };
  }
  const addresses = (await watchedAddresses(deps.store)).sort();
  let changed = 0;
  let batches = 0;
  // A chunk at a time: its known verdicts (one HMGET) beside its batch call, its first verdicts
  // saved together (one HSET); only a change costs more.
  for (let i = 0; i < addresses.length; i += COMPLIANCE_BATCH_MAX) {
    const chunk = addresses.slice(i, i + COMPLIANCE_BATCH_MAX);
    const [known, result] = await Promise.all([
      readVerdicts(deps.store, chunk),
      deps.service.compliance.batch(chunk),
    ]);
    batches += 1;
    const byIndex = result.results.length === chunk.length;
    const firsts: [string, VerdictRecord][] = [];
    for (const [j, verdict] of result.results.entries()) {
      const address = byIndex ? (chunk[j] ?? verdict.address) : verdict.address;
      // `invalid` cannot come back for an address checked locally; never let it pose as a change.
      if (verdict.category === "invalid") continue;
      const previous = known.get(address);
      if (previous === undefined) firsts.push([address, recordOf(verdict, deps.now(), 0)]);
      else if (previous.category !== verdict.category) {
        await applyChange(deps, onBlocked, address, verdict, previous);
        changed += 1;
      }
    }
    await saveVerdicts(deps.store, firsts);
  }
  await saveState(deps.store, { revision: stats.revision, checkedAt: now });
  if (changed > 0 || state.revision !== stats.revision) {
    deps.logger.info(
      { revision: stats.revision, checked: addresses.length, changed, batches },
      "watch: deny list re-checked",
    );
  }
  return { revision: stats.revision, checked: addresses.length, changed, batches, skipped: false };
}

/**
 * First verdicts the auto-watch left for later (no free slot for its open lookup): one batch call
 * per 1000 addresses, saved without an alert like any baseline; one set meanwhile stands.
 */
export async function takeDueBaselines(deps: CoreDeps): Promise<number> {
  const due = (await baselinesDue(deps.store)).sort();
  if (due.length === 0) return 0;
  const watched = new Set(await watchedAddresses(deps.store));
  let taken = 0;
  for (let i = 0; i < due.length; i += COMPLIANCE_BATCH_MAX) {
    const chunk = due.slice(i, i + COMPLIANCE_BATCH_MAX);
    const had = await readVerdicts(deps.store, chunk);
    const wanted = chunk.filter((address) => watched.has(address) && !had.has(address));
    const result = wanted.length > 0 ? await deps.service.compliance.batch(wanted) : { results: [] };
    const byIndex = result.results.length === wanted.length;
    // Another instance's re-check may have set some meanwhile: theirs stand.
    const setMeanwhile = await readVerdicts(deps.store, wanted);
    const firsts: [string, VerdictRecord][] = [];
    for (const [j, verdict] of result.results.entries()) {
      const address = byIndex ? (wanted[j] ?? verdict.address) : verdict.address;
      if (verdict.category === "invalid" || setMeanwhile.has(address)) continue;
      firsts.push([address, recordOf(verdict, deps.now(), 0)]);
    }
    await saveVerdicts(deps.store, firsts);
    taken += firsts.length;
    await clearBaselinesDue(deps.store, chunk);
  }
  return taken;
}

/** A verdict that differs from the last one: posted, then stored with the next `seq`. */
async function applyChange(
  deps: CoreDeps,
  onBlocked: readonly OnBlocked[],
  address: string,
  verdict: ComplianceVerdict,
  previous: VerdictRecord,
): Promise<void> {
  const next = recordOf(verdict, deps.now(), previous.seq + 1);
  await postChange(deps, onBlocked, address, previous, next);
  await saveVerdict(deps.store, address, next);
}

async function postChange(
  deps: CoreDeps,
  onBlocked: readonly OnBlocked[],
  address: string,
  previous: VerdictRecord,
  next: VerdictRecord,
): Promise<void> {
  const watchers = await watchersOf(deps.store, address);
  const guard = next.blocked
    ? await runOnBlocked(deps, onBlocked, { address, category: next.category, seq: next.seq, watchers })
    : {};
  const posts = [];
  for (const conversation of watchers) {
    const entry = await readWatch(deps.store, conversation, address);
    const token = guard.stopTokens?.get(conversationKey(conversation));
    const reply = renderChange({
      address,
      ...(entry?.label && { label: entry.label }),
      previous,
      next,
      ...(guard.hostLine && { hostLine: guard.hostLine }),
      ...(token && { stopToken: token }),
    });
    posts.push({ conversation, reply, dedupKey: changeKey(address, next.seq, conversation) });
  }
  // Off the deny list: the alert of the change that put it there says so in place.
  if (!next.blocked && previous.blocked) {
    const note = `off the deny list: ${next.category}`;
    await clearAlertOf(deps, "host.blocked", address, note);
    await clearAlertOf(deps, "watch.verdict", address, note);
  }
  const found = await caseOfVerdict(deps, address, next, watchers[0]);
  for (const post of posts) post.reply = { ...post.reply, blocks: [...post.reply.blocks, ...found] };
  await raiseAlert(deps, {
    key: `watch:${address}:${next.seq}`,
    kind: guard.hostLine ? "host.blocked" : "watch.verdict",
    subject: { type: "address", id: address },
    severity: next.blocked ? "critical" : "info",
    posts,
    alsoFor: "watch",
  });
}

const changeKey = (address: string, seq: number, conversation: ConversationRef): string =>
  `watch:${address}:${seq}:${conversationKey(conversation)}`;

/** A watched address put on the deny list as `aml_risk` or `usdt_frozen` opens (or adds to) its case. */
async function caseOfVerdict(
  deps: CoreDeps,
  address: string,
  next: VerdictRecord,
  foundIn: ConversationRef | undefined,
) {
  if (next.category !== "aml_risk" && next.category !== "usdt_frozen") return [];
  const outcome = await noteFinding(deps, {
    address,
    key: `deny:${address}:${next.seq}`,
    what: `deny list: ${next.category}`,
    ...(foundIn && { foundIn }),
  });
  return findingLine(outcome);
}
