import { createHash } from "node:crypto";
import { z } from "zod";
import type { Store } from "../../store/store.js";
import { getJson, setJson } from "../../store/store-json.js";
import { updateVersioned, type VersionedKind } from "../../store/versioned.js";
import { type ConversationRef, conversationKey, conversationRefSchema } from "../invocation.js";

/**
 * The one alert model: what the bot raised on its own (a watched address changed verdict, a Host
 * Mode address became blocked, the balance or runway is low, a delivery was not confirmed, the
 * re-screen budget is used up, and whatever later features raise), who did what with it and when,
 * and the messages that show it. Stored as JSON under `alert:<id>`; every change writes the next
 * `version`, claimed first with SET NX, so two people (or two instances) changing one alert at
 * once never overwrite each other: the loser reads the winner's change and decides again.
 */
const ALERT_KINDS = [
  "watch.verdict",
  "watch.rescreen",
  "watch.budget",
  "host.blocked",
  "runway.low",
  "delivery.unconfirmed",
] as const;
/** Later features add their kinds here (standing orders, payout runs). */
export type AlertKind = (typeof ALERT_KINDS)[number] | (string & {});
export type AlertSeverity = "info" | "warning" | "critical";
type AlertState = "open" | "acknowledged" | "snoozed" | "resolved";
export type AlertSubject = { type: "address" | "order" | "account" | (string & {}); id: string };

interface AlertChange {
  /** What happened: a state, or `raised`, `escalated`, `re-raised`, `cleared`. */
  what: AlertState | "raised" | "escalated" | "re-raised" | "cleared";
  at: number;
  /** Who, as people read it (display name, or "the bot"). */
  by: string;
  /** `slack:U…` / `telegram:…` when a person did it. */
  byKey?: string;
  note?: string;
}

export interface AlertRecord {
  id: string;
  /** The caller's key: raising the same key twice is the same alert. */
  key: string;
  kind: AlertKind;
  subject: AlertSubject;
  severity: AlertSeverity;
  /** One line naming the alert (the notice's summary). */
  title: string;
  state: AlertState;
  raisedAt: number;
  version: number;
  history: AlertChange[];
  /** Who acknowledged it first, kept through a snooze. */
  ackedBy?: { by: string; at: number };
  snoozedUntil?: number;
  /** Where it was posted (the alert destination, the origin, subscribed conversations). */
  destinations: ConversationRef[];
}

const changeSchema = z.object({
  what: z.string(),
  at: z.number(),
  by: z.string(),
  byKey: z.string().optional(),
  note: z.string().optional(),
});

const recordSchema = z.object({
  id: z.string(),
  key: z.string(),
  kind: z.string(),
  subject: z.object({ type: z.string(), id: z.string() }),
  severity: z.enum(["info", "warning", "critical"]),
  title: z.string(),
  state: z.enum(["open", "acknowledged", "snoozed", "resolved"]),
  raisedAt: z.number(),
  version: z.number(),
  history: z.array(changeSchema),
  ackedBy: z.object({ by: z.string(), at: z.number() }).optional(),
  snoozedUntil: z.number().optional(),
  destinations: z.array(conversationRefSchema),
});

/** An alert lives a month in the store; `alerts all` shows the last day's resolved ones. */
export const ALERT_TTL_MS = 30 * 24 * 3_600_000;
const RESOLVED_LIST_MAX = 500;

const ALERT_KEY = (id: string) => `alert:${id}`;
const VERSION_KEY = (id: string, version: number) => `alert:${id}:v${version}`;
/** Per conversation, the message id that shows the alert (recorded by the notify worker). */
export const MESSAGES_KEY = (id: string) => `alert:${id}:messages`;
/** Per conversation, the notice as the alert's source rendered it (re-rendered on every change). */
export const CONTENT_KEY = (id: string) => `alert:${id}:content`;
export const ACTIVE_KEY = "alerts:active";
export const RESOLVED_KEY = "alerts:resolved";
const SUBJECT_KEY = (kind: string, subject: string) => `alerts:subject:${kind}:${subject}`;

/** A short id people can read and type (12 chars of base64url), the same for the same key. */
/**
 * Letters and digits only: an id is shown to people and searched for in logs, and Slack's
 * rendering swaps an `_` at a word's edge for a look-alike (see adapters/slack/render/mrkdwn.ts).
 */
export const alertIdOf = (key: string): string =>
  createHash("sha256")
    .update(key)
    .digest("base64url")
    .slice(0, 12)
    .replace(/[-_]/g, (c) => (c === "-" ? "x" : "y"));

export async function readAlert(store: Store, id: string): Promise<AlertRecord | null> {
  return (await getJson(store, ALERT_KEY(id), recordSchema)) as AlertRecord | null;
}

export async function readAlerts(store: Store, ids: readonly string[]): Promise<AlertRecord[]> {
  if (ids.length === 0) return [];
  const raws = await store.getMany(ids.map(ALERT_KEY));
  const out: AlertRecord[] = [];
  for (const raw of raws) {
    if (raw === null) continue;
    const parsed = recordSchema.safeParse(safeJson(raw));
    if (parsed.success) out.push(parsed.data as AlertRecord);
  }
  return out;
}

const safeJson = (raw: string): unknown => {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
};

/** Stores a new alert once: false when the key was raised before (a re-run after a crash). */
export async function createAlert(store: Store, record: AlertRecord): Promise<boolean> {
  if (!(await store.setIfNotExists(VERSION_KEY(record.id, record.version), "1", ALERT_TTL_MS))) return false;
  await setJson(store, ALERT_KEY(record.id), record, ALERT_TTL_MS);
  await store.setAdd(ACTIVE_KEY, record.id);
  await store.set(SUBJECT_KEY(record.kind, record.subject.id), record.id, ALERT_TTL_MS);
  return true;
}

/** The latest alert of a kind about a subject (to clear it when its cause is gone). */
export const alertOfSubject = (store: Store, kind: string, subjectId: string): Promise<string | null> =>
  store.get(SUBJECT_KEY(kind, subjectId));

export type Transition = (alert: AlertRecord) => AlertRecord | { refused: string };

const alerts: VersionedKind<AlertRecord> = {
  read: readAlert,
  write: (store, id, record) => setJson(store, ALERT_KEY(id), record, ALERT_TTL_MS),
  versionKey: VERSION_KEY,
  ttlMs: ALERT_TTL_MS,
};

/** Applies `change` to the alert's latest version (src/store/versioned.ts: a loser decides again). */
export async function updateAlert(
  store: Store,
  id: string,
  change: Transition,
): Promise<{ ok: true; alert: AlertRecord } | { ok: false; line: string; alert: AlertRecord | null }> {
  const update = await updateVersioned(store, alerts, id, change);
  if ("missing" in update)
    return { ok: false, line: "This alert is no longer kept (alerts last 30 days).", alert: null };
  if (!update.ok) return { ok: false, line: update.refused, alert: update.current };
  if (update.after.state === "resolved" && update.before.state !== "resolved") {
    await store.setRemove(ACTIVE_KEY, id);
    await store.listPush(RESOLVED_KEY, id, RESOLVED_LIST_MAX);
  }
  return { ok: true, alert: update.after };
}

export async function recordMessage(
  store: Store,
  id: string,
  conversation: ConversationRef,
  messageId: string,
): Promise<void> {
  await store.hashSet(MESSAGES_KEY(id), conversationKey(conversation), messageId, ALERT_TTL_MS);
}

export async function messagesOf(store: Store, id: string): Promise<Map<string, string>> {
  return new Map(Object.entries(await store.hashGetAll(MESSAGES_KEY(id))));
}
