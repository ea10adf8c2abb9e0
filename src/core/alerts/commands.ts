import type { CommandDefinition } from "../command.js";
import type { CoreDeps } from "../deps.js";
import { capList, moreLine } from "../format.js";
import {
  isSubscriptionKind,
  SUBSCRIPTION_KINDS,
  subscribe,
  subscriptionsOf,
  unsubscribe,
} from "../notices/subscriptions.js";
import { type Block, context, errorReply, header, publicReply, text } from "../reply.js";
import { ACTIVE_KEY, type AlertRecord, RESOLVED_KEY, readAlerts } from "./alert.js";
import { whenOf } from "./render.js";

/** `alerts`, `alerts all`; `subscribe <kind>`, `unsubscribe <kind>`, `subscriptions`. */
const MAX_LISTED = 30;
const DAY_MS = 24 * 3_600_000;
const KINDS = SUBSCRIPTION_KINDS.join("|");

const ageOf = (ms: number): string => {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h ${minutes % 60} min` : `${Math.floor(hours / 24)} days`;
};

export function alertLine(alert: AlertRecord, now: number): string {
  const owner =
    alert.state === "resolved"
      ? `resolved ${whenOf(alert.history.at(-1)?.at ?? now, now)} by ${alert.history.at(-1)?.by ?? "the bot"}`
      : alert.ackedBy
        ? `acknowledged by ${alert.ackedBy.by}`
        : "nobody acknowledged it";
  const snoozed =
    alert.state === "snoozed" ? `, snoozed until ${whenOf(alert.snoozedUntil ?? now, now)}` : "";
  return `• ${alert.id} [${alert.severity}] ${alert.title} — ${ageOf(now - alert.raisedAt)} old, ${owner}${snoozed}`;
}

/** Open and snoozed alerts, newest first; with `all`, the last day's resolved ones too. */
export async function listAlerts(
  deps: Pick<CoreDeps, "store" | "now">,
  all: boolean,
): Promise<AlertRecord[]> {
  const now = deps.now();
  const ids = await deps.store.setMembers(ACTIVE_KEY);
  const active = await readAlerts(deps.store, ids);
  // An alert kept past its month (never resolved) leaves the active set with its record.
  const gone = ids.filter((id) => !active.some((a) => a.id === id));
  if (gone.length > 0) await deps.store.setRemove(ACTIVE_KEY, ...gone);
  const live = active.filter((a) => a.state !== "resolved");
  const resolved = all
    ? (await readAlerts(deps.store, await deps.store.listRange(RESOLVED_KEY, 500))).filter(
        (a) => a.state === "resolved" && now - (a.history.at(-1)?.at ?? 0) <= DAY_MS,
      )
    : [];
  const seen = new Set<string>();
  return [...live, ...resolved]
    .filter((a) => !seen.has(a.id) && seen.add(a.id))
    .sort((a, b) => b.raisedAt - a.raisedAt);
}

export const alertsCommand: CommandDefinition = {
  verb: "alerts",
  role: "viewer",
  summary: "open alerts (all: the last day's resolved too)",
  usage: "alerts [all]",
  example: "alerts",
  async run({ args, deps }) {
    const [word, ...rest] = args;
    if (rest.length > 0 || (word !== undefined && word.toLowerCase() !== "all")) {
      return errorReply(`"${args.join(" ")}" is not understood: use alerts, or alerts all.`);
    }
    const all = word !== undefined;
    const now = deps.now();
    const alerts = await listAlerts(deps, all);
    const title = all ? "Alerts (open, snoozed, and resolved in the last day)" : "Open alerts";
    if (alerts.length === 0) {
      const line = all ? "No alerts in the last day." : "No open alerts.";
      return publicReply(line, [text(line)]);
    }
    const { shown, more } = capList(alerts, MAX_LISTED);
    const blocks: Block[] = [
      header(`${title}: ${alerts.length}`),
      text(shown.map((a) => alertLine(a, now)).join("\n")),
    ];
    if (more > 0) blocks.push(context(moreLine(more)));
    return publicReply(`${title}: ${alerts.length}`, blocks);
  },
};

export const subscribeCommand: CommandDefinition = {
  verb: "subscribe",
  role: "operator",
  summary: "copies of one kind here too",
  usage: `subscribe ${KINDS}`,
  example: "subscribe alerts",
  async run({ args, deps, invocation }) {
    const kind = args[0]?.toLowerCase();
    if (args.length !== 1 || kind === undefined || !isSubscriptionKind(kind)) {
      return errorReply(`Subscribe to one of ${SUBSCRIPTION_KINDS.join(", ")}, such as: subscribe alerts.`);
    }
    const added = await subscribe(deps.store, kind, invocation.conversation);
    const line = added
      ? `Subscribed: copies of ${kind} notifications are posted here too.`
      : `Already subscribed to ${kind} here.`;
    return publicReply(line, [text(line)]);
  },
};

export const unsubscribeCommand: CommandDefinition = {
  verb: "unsubscribe",
  role: "operator",
  summary: "stop those copies here",
  usage: `unsubscribe ${KINDS}`,
  example: "unsubscribe alerts",
  async run({ args, deps, invocation }) {
    const kind = args[0]?.toLowerCase();
    if (args.length !== 1 || kind === undefined || !isSubscriptionKind(kind)) {
      return errorReply(
        `Unsubscribe from one of ${SUBSCRIPTION_KINDS.join(", ")}, such as: unsubscribe alerts.`,
      );
    }
    const removed = await unsubscribe(deps.store, kind, invocation.conversation);
    const line = removed
      ? `Unsubscribed: no more copies of ${kind} notifications here.`
      : `Not subscribed to ${kind} here.`;
    return publicReply(line, [text(line)]);
  },
};

export const subscriptionsCommand: CommandDefinition = {
  verb: "subscriptions",
  role: "viewer",
  summary: "this conversation's subscriptions",
  usage: "subscriptions",
  example: "subscriptions",
  async run({ deps, invocation }) {
    const kinds = await subscriptionsOf(deps.store, invocation.conversation);
    const line =
      kinds.length === 0
        ? `This conversation has no subscriptions (subscribe ${KINDS}).`
        : `Subscribed here: ${kinds.join(", ")}.`;
    return publicReply(line, [text(line)]);
  },
};
