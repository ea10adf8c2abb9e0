import { formatEpoch, shortAddress } from "../format.js";
import {
  type Block,
  bold,
  buttons,
  code,
  context,
  fields,
  header,
  publicReply,
  type Reply,
  text,
} from "../reply.js";
import type { ScreenPeriod, ScreenResult, VerdictRecord, WatchEntry } from "./state.js";

/** Rendering of watch replies and alerts, platform-neutral. */
const LIST_PAGE_SIZE = 20;
const STOP_HOST_LABEL = "Stop Host Mode";

const named = (address: string, label?: string): string =>
  label ? `${label} (${shortAddress(address)})` : address;

/** `usdt_frozen`, or `aml_risk (BLOCK, OFAC_SDN: OFAC SDN list)`. */
function verdictText(v: Pick<VerdictRecord, "category" | "severity" | "reason_code" | "label">): string {
  const detail = [v.severity, v.reason_code].filter(Boolean).join(", ");
  const extra = [detail, v.label].filter(Boolean).join(": ");
  return extra ? `${v.category} (${extra})` : v.category;
}

export function renderAdded(entry: WatchEntry, verdict: VerdictRecord | undefined, existed: boolean): Reply {
  const what = `${existed ? "Updated the watch of" : "Watching"} ${named(entry.address, entry.label)}`;
  const lines: Block[] = [
    text(bold(what), " in this conversation."),
    fields(
      ["Address", code(entry.address)],
      ["Deny list now", verdict ? verdictText(verdict) : "not checked yet (next re-check)"],
    ),
    context(
      entry.screen
        ? `Re-checked when the deny list changes; AML re-screened ${entry.screen} (billed, within OPS_WATCH_BUDGET_TRX). A change is posted here once.`
        : "Re-checked when the deny list changes; a change is posted here once, no change never.",
    ),
  ];
  return publicReply(what, lines);
}

/** At most this many listed addresses are named in the answer to a list; `watch list` shows all. */
const LISTED_SHOWN = 20;

export function renderAddedMany(view: {
  addresses: readonly string[];
  added: number;
  verdicts: ReadonlyMap<string, VerdictRecord>;
  screen?: ScreenPeriod;
}): Reply {
  const total = view.addresses.length;
  const updated = total - view.added;
  const what = `Watching ${total} addresses in this conversation (${view.added} new, ${updated} already watched)`;
  const listed = view.addresses.filter((a) => {
    const v = view.verdicts.get(a);
    return v !== undefined && v.category !== "clean";
  });
  const clean = view.addresses.filter((a) => view.verdicts.get(a)?.category === "clean").length;
  const unchecked = total - clean - listed.length;
  const counts = [
    `${clean} clean`,
    `${listed.length} listed`,
    ...(unchecked > 0 ? [`${unchecked} not checked yet (next re-check)`] : []),
  ].join(", ");
  const shown = listed.slice(0, LISTED_SHOWN);
  const lines: Block[] = [
    text(bold(what), "."),
    fields(["Deny list now", counts]),
    ...shown.map((a) => {
      const v = view.verdicts.get(a);
      return text(code(a), ` ${v ? verdictText(v) : ""}`);
    }),
    ...(listed.length > shown.length
      ? [text(`…and ${listed.length - shown.length} more listed: watch list shows them.`)]
      : []),
    context(
      view.screen
        ? `Re-checked when the deny list changes; AML re-screened ${view.screen} (billed, within OPS_WATCH_BUDGET_TRX). A change is posted here once.`
        : "Re-checked when the deny list changes; a change is posted here once, no change never.",
    ),
  ];
  return publicReply(what, lines);
}

export function renderRemoved(address: string, label: string | undefined, by: string): Reply {
  const line = `Stopped watching ${named(address, label)} (removed by ${by}).`;
  return publicReply(line, [text(line)]);
}

export interface ListView {
  entries: readonly WatchEntry[];
  verdicts: ReadonlyMap<string, VerdictRecord>;
  screens: ReadonlyMap<string, ScreenResult | undefined>;
  lastFullCheck?: number;
  page: number;
  /** `12.5 of 100 TRX used this month`, when re-screening has a budget. */
  budgetLine?: string;
}

/** The page of a list `watch list <page>` shows (the last one when `page` is past it). */
export function listPage<T>(
  entries: readonly T[],
  page: number,
): { page: number; pages: number; shown: T[] } {
  const pages = Math.max(1, Math.ceil(entries.length / LIST_PAGE_SIZE));
  const shownPage = Math.min(page, pages);
  return {
    page: shownPage,
    pages,
    shown: entries.slice((shownPage - 1) * LIST_PAGE_SIZE, shownPage * LIST_PAGE_SIZE),
  };
}

export function renderList(view: ListView): Reply {
  const total = view.entries.length;
  if (total === 0) {
    const line = "Nothing is watched in this conversation. Add an address with watch add <address> [label].";
    return publicReply(line, [text(line), ...(view.budgetLine ? [context(view.budgetLine)] : [])]);
  }
  const { page, pages, shown } = listPage(view.entries, view.page);
  const title = `Watched here: ${total} address${total === 1 ? "" : "es"}`;
  const blocks: Block[] = [header(title)];
  for (const entry of shown) blocks.push(text(...entryLine(entry, view)));
  const notes: string[] = [];
  if (pages > 1)
    notes.push(
      `Page ${page} of ${pages}; watch list ${page < pages ? page + 1 : 1} for ${page < pages ? "the next" : "the first"}.`,
    );
  if (view.budgetLine) notes.push(`Re-screening budget: ${view.budgetLine}.`);
  if (notes.length > 0) blocks.push(context(notes.join(" ")));
  return publicReply(title, blocks);
}

function entryLine(entry: WatchEntry, view: ListView) {
  const verdict = view.verdicts.get(entry.address);
  const seen = [view.lastFullCheck, verdict?.since].filter((t): t is number => t !== undefined);
  const checked = seen.length > 0 ? Math.max(...seen) : undefined;
  const who = entry.addedBy === "auto" ? "auto (ordered here)" : (entry.addedByName ?? entry.addedBy);
  const parts = [
    code(entry.address),
    entry.label ? ` ${entry.label}` : "",
    ` — ${verdict ? verdictText(verdict) : "not checked yet"}`,
    `; by ${who} since ${formatEpoch(entry.since)}`,
    `; last check ${checked === undefined ? "never" : formatEpoch(checked)}`,
  ];
  const screen = view.screens.get(entry.address);
  if (entry.screen) {
    parts.push(
      `; re-screened ${entry.screen}${screen ? `, last score ${screen.score ?? "none"} (${screen.level})` : ""}`,
    );
  }
  return parts;
}

export interface ChangeView {
  address: string;
  label?: string;
  previous: VerdictRecord;
  next: VerdictRecord;
  /** The Host Mode guard's line, when the address is in Host Mode. */
  hostLine?: string;
  stopToken?: string;
}

export function renderChange(view: ChangeView): Reply {
  const { address, previous, next } = view;
  const who = named(address, view.label);
  const summary = next.blocked
    ? `Watchlist: ${who} is now on the deny list: ${next.category} (was ${previous.category})`
    : `Watchlist: ${who} is off the deny list: clean (was ${previous.category})`;
  const blocks: Block[] = [
    text(bold(summary)),
    fields(
      ["Address", code(address)],
      ["Label", view.label ?? "—"],
      ["Now", verdictText(next)],
      ["Before", verdictText(previous)],
    ),
  ];
  if (view.hostLine) blocks.push(text(view.hostLine));
  if (view.stopToken)
    blocks.push(buttons({ label: STOP_HOST_LABEL, token: view.stopToken, style: "danger" }));
  return publicReply(summary, blocks);
}

export interface RescreenView {
  address: string;
  label?: string;
  before: ScreenResult;
  after: ScreenResult;
  reasons: string[];
}

export function renderRescreen(view: RescreenView): Reply {
  const who = named(view.address, view.label);
  const summary = `Watchlist re-screen: ${who} risk changed (${view.reasons.join("; ")})`;
  const score = (r: ScreenResult) =>
    `${r.score ?? "none"}/${r.scaleMax} ${r.level}${r.sanctioned ? ", sanctioned" : ""}`;
  return publicReply(summary, [
    text(bold(summary)),
    fields(
      ["Address", code(view.address)],
      ["Score and level", `${score(view.before)} → ${score(view.after)}`],
      ["Top exposure", view.after.topExposure ?? "none reported"],
    ),
  ]);
}

export function renderBudgetUsed(usedTrx: string, budgetTrx: string): Reply {
  const line = `Watchlist re-screening paused: this month's budget is used up (${usedTrx} of ${budgetTrx} TRX, OPS_WATCH_BUDGET_TRX). Deny-list watching goes on; re-screens resume next month.`;
  return publicReply(line, [text(line)]);
}
