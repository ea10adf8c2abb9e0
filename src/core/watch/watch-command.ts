import { isServiceError } from "../../service/errors.js";
import type { CommandContext, CommandDefinition } from "../command.js";
import type { CoreDeps } from "../deps.js";
import { actorKey } from "../invocation.js";
import { sunToTrx } from "../pricing/trx.js";
import { errorReply, type Reply } from "../reply.js";
import { can, refusalLine } from "../roles.js";
import { whoName } from "../spend/confirmed.js";
import { addMany } from "./add-many.js";
import { budgetUsedSun } from "./budget.js";
import { parseWatchArgs, type WatchArgs } from "./parse.js";
import {
  deleteWatch,
  listWatches,
  readScreensOf,
  readState,
  readVerdict,
  readVerdicts,
  readWatch,
  saveVerdict,
  saveWatch,
  syncScreen,
  type VerdictRecord,
  type WatchEntry,
} from "./state.js";
import { listPage, renderAdded, renderList, renderRemoved } from "./watch-render.js";

/**
 * `watch add|remove|list`: watch TRON addresses in this conversation. Everyone may list; adding and
 * removing needs the operator role (a watch can bill re-screens and stop Host Mode).
 */
export const watchCommand: CommandDefinition = {
  verb: "watch",
  subverbs: ["add", "remove", "list"],
  role: "viewer",
  summary: "watch addresses here; a deny-list change is posted once",
  usage:
    "watch add <address> [label…] [screen daily|weekly] | add <address>… (a list or a CSV file) | remove <address> | list [page]",
  example: "watch add TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t hot wallet",
  details:
    "A CSV file shared with the message watch add (Slack file, Telegram document with the caption /watch add; console: watch add @file.csv): one address per row in the first column, an optional second column is its label, header optional, UTF-8, up to 10000 addresses and 512 KB; screen daily|weekly may follow watch add. One bad row refuses the whole file.",
  async run(ctx) {
    const parsed = parseWatchArgs(ctx.subverb, ctx.args, ctx.invocation.file);
    if (!parsed.ok) return errorReply(parsed.error);
    const args = parsed.value;
    if (args.kind !== "list" && !can(ctx.role, "operator")) {
      return errorReply(refusalLine(`watch ${ctx.subverb}`, "operator", ctx.role, ctx.invocation.actor));
    }
    switch (args.kind) {
      case "add":
        return add(ctx, args);
      case "add-many":
        return addMany(ctx, args);
      case "remove":
        return remove(ctx, args.address);
      case "list":
        return list(ctx, args.page);
    }
  },
};

async function add(ctx: CommandContext, args: Extract<WatchArgs, { kind: "add" }>): Promise<Reply> {
  const { deps } = ctx;
  const { actor, conversation } = ctx.invocation;
  if (args.screen && deps.settings.watch.budgetTrx === undefined) {
    return errorReply(
      "AML re-screening is off: OPS_WATCH_BUDGET_TRX is not set. Use watch add <address> [label] for the free deny-list watch.",
    );
  }
  const existing = await readWatch(deps.store, conversation, args.address);
  const entry: WatchEntry = {
    address: args.address,
    ...((args.label ?? existing?.label) !== undefined && { label: args.label ?? existing?.label }),
    addedBy: existing?.addedBy ?? actorKey(actor),
    addedByName: existing?.addedByName ?? whoName(actor),
    since: existing?.since ?? deps.now(),
    ...((args.screen ?? existing?.screen) !== undefined && { screen: args.screen ?? existing?.screen }),
  };
  await saveWatch(deps.store, conversation, entry);
  await syncScreen(deps.store, entry.address, deps.now());
  const verdict = await baseline(deps, entry.address);
  return renderAdded(entry, verdict, existing !== undefined);
}

/**
 * The verdict a new watch starts from: the stored one when another conversation already watches
 * the address, else one open lookup (free). A failed lookup leaves it to the next re-check, which
 * sets the baseline without an alert. `maxLimiterWaitMs`: see CallSpec.
 */
export async function baseline(
  deps: CoreDeps,
  address: string,
  options: { maxLimiterWaitMs?: number } = {},
): Promise<VerdictRecord | undefined> {
  const known = await readVerdict(deps.store, address);
  if (known) return known;
  try {
    const v = await deps.service.compliance.lookup(address, options);
    const record: VerdictRecord = {
      category: v.category,
      blocked: v.blocked,
      ...(v.severity && { severity: v.severity }),
      ...(v.reason_code && { reason_code: v.reason_code }),
      ...(v.label && { label: v.label }),
      since: deps.now(),
      seq: 0,
    };
    // Another instance's re-check may have set it meanwhile: theirs stands.
    if (await readVerdict(deps.store, address)) return readVerdict(deps.store, address);
    await saveVerdict(deps.store, address, record);
    return record;
  } catch (error) {
    if (!isServiceError(error)) throw error;
    if (error.code === "no_free_slot") return undefined;
    deps.logger.warn(
      { err: error, address },
      "watch: first deny-list lookup failed; the next re-check sets it",
    );
    return undefined;
  }
}

async function remove(ctx: CommandContext, address: string): Promise<Reply> {
  const { deps } = ctx;
  const entry = await readWatch(deps.store, ctx.invocation.conversation, address);
  if (!(await deleteWatch(deps.store, ctx.invocation.conversation, address))) {
    return errorReply(`${address} is not watched in this conversation; watch list shows what is.`);
  }
  await syncScreen(deps.store, address, deps.now());
  return renderRemoved(address, entry?.label, whoName(ctx.invocation.actor));
}

async function list(ctx: CommandContext, page: number): Promise<Reply> {
  const { deps } = ctx;
  const entries = await listWatches(deps.store, ctx.invocation.conversation);
  // Only the page's verdicts and schedules are read, however many addresses are watched.
  const shown = listPage(entries, page).shown.map((e) => e.address);
  const [verdicts, screens, state] = await Promise.all([
    readVerdicts(deps.store, shown),
    readScreensOf(deps.store, shown),
    readState(deps.store),
  ]);
  const budget = deps.settings.watch.budgetTrx;
  const budgetLine =
    budget === undefined
      ? undefined
      : `${sunToTrx(await budgetUsedSun(deps.store, deps.now()))} of ${budget} TRX used this month`;
  return renderList({
    entries,
    verdicts,
    screens: new Map([...screens].map(([a, s]) => [a, s.last])),
    ...(state.checkedAt !== undefined && { lastFullCheck: state.checkedAt }),
    page,
    ...(budgetLine && { budgetLine }),
  });
}
