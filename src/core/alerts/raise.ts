import type { CoreDeps } from "../deps.js";
import { type ConversationRef, conversationKey, isPlatformName } from "../invocation.js";
import { copyTargets, type SubscriptionKind } from "../notices/subscriptions.js";
import type { Reply } from "../reply.js";
import { decodeReply, type EncodedReply, encodeReply } from "../reply-codec.js";
import {
  ALERT_TTL_MS,
  type AlertKind,
  type AlertRecord,
  type AlertSeverity,
  type AlertSubject,
  alertIdOf,
  alertOfSubject,
  CONTENT_KEY,
  createAlert,
  MESSAGES_KEY,
  messagesOf,
  readAlert,
  updateAlert,
} from "./alert.js";
import { refreshHomes } from "./home.js";
import { renderAlert } from "./render.js";

/**
 * `raiseAlert` is the one way the bot raises an alert. The caller says what it is (kind, subject,
 * severity, a key that names this occurrence) and what to post where (its own rendering and
 * dedup keys, so its text and destinations stay its own); the alert is stored, each message gets
 * Ack / Snooze 1h / Resolve, subscribed conversations get a copy, and the escalation is
 * scheduled as a delayed job keyed by the alert. Running it again for the same key (a re-run
 * after a crash, another instance) posts nothing twice and schedules nothing twice.
 */
interface AlertPost {
  conversation: ConversationRef;
  reply: Reply;
  /** The notifier's dedup key; default `alert:<id>:<conversation>`. */
  dedupKey?: string;
}

export interface RaiseAlertInput {
  key: string;
  kind: AlertKind;
  subject: AlertSubject;
  severity: AlertSeverity;
  posts: readonly AlertPost[];
  /** Besides `alerts`, the subscription kind whose subscribers get a copy (`watch`, `deliveries`). */
  alsoFor?: SubscriptionKind;
}

const escalationJobId = (id: string, round = ""): string => `alert-escalate:${id}${round}`;

export async function raiseAlert(deps: CoreDeps, input: RaiseAlertInput): Promise<AlertRecord> {
  const id = alertIdOf(input.key);
  const first = input.posts[0];
  const record: AlertRecord = {
    id,
    key: input.key,
    kind: input.kind,
    subject: input.subject,
    severity: input.severity,
    title: first?.reply.summary ?? input.kind,
    state: "open",
    raisedAt: deps.now(),
    version: 0,
    history: [{ what: "raised", at: deps.now(), by: "the bot" }],
    destinations: input.posts.map((p) => p.conversation),
  };
  const created = await createAlert(deps.store, record);
  const alert = created ? record : ((await readAlert(deps.store, id)) ?? record);
  const posts = [...input.posts, ...(first ? await copiesOf(deps, input, first) : [])];
  for (const post of posts) await postAlert(deps, alert, post);
  if (created) {
    await scheduleEscalation(deps, alert);
    await refreshHomes(deps, `${id}:v${alert.version}`);
  }
  return alert;
}

/** Copies for `subscribe alerts` (and the kind's own subscription), with buttons of their own. */
async function copiesOf(deps: CoreDeps, input: RaiseAlertInput, first: AlertPost): Promise<AlertPost[]> {
  const posted = input.posts.map((p) => p.conversation);
  const targets = await copyTargets(deps.store, "alerts", posted);
  if (input.alsoFor) {
    for (const t of await copyTargets(deps.store, input.alsoFor, posted))
      if (!targets.some((x) => x.platform === t.platform && x.id === t.id)) targets.push(t);
  }
  const { alert: _line, ...reply } = first.reply;
  return targets.map((conversation) => ({
    conversation,
    reply,
    dedupKey: `alert:${alertIdOf(input.key)}:copy:${conversationKey(conversation)}`,
  }));
}

async function postAlert(deps: CoreDeps, alert: AlertRecord, post: AlertPost): Promise<void> {
  const where = conversationKey(post.conversation);
  await deps.store.hashSet(
    CONTENT_KEY(alert.id),
    where,
    JSON.stringify(encodeReply(post.reply)),
    ALERT_TTL_MS,
  );
  const message = await renderAlert(deps, alert, post.reply, post.conversation);
  await deps.notifier.post(post.conversation, message, post.dedupKey ?? `alert:${alert.id}:${where}`);
}

async function scheduleEscalation(deps: CoreDeps, alert: AlertRecord, round = ""): Promise<void> {
  const { escalateMs } = deps.settings.alerts;
  if (escalateMs === undefined) return;
  await deps.jobs.schedule(
    { kind: "alert-escalate", alertId: alert.id },
    { delayMs: escalateMs, jobId: escalationJobId(alert.id, round) },
  );
}

/** The content each conversation got, by conversation key. */
export async function contentsOf(
  deps: Pick<CoreDeps, "store">,
  id: string,
): Promise<Map<string, { conversation: ConversationRef; reply: Reply }>> {
  const out = new Map<string, { conversation: ConversationRef; reply: Reply }>();
  const all = await deps.store.hashGetAll(CONTENT_KEY(id));
  const alert = await readAlert(deps.store, id);
  for (const [key, raw] of Object.entries(all)) {
    const conversation = conversationOfKey(key, alert?.destinations ?? []);
    if (conversation === undefined) continue;
    try {
      out.set(key, { conversation, reply: decodeReply(JSON.parse(raw) as EncodedReply) });
    } catch {
      // Unreadable content: that message is left as it is.
    }
  }
  return out;
}

/** A conversation from its key (`platform:id[:thread]`), the destinations' own ref when it is one. */
function conversationOfKey(key: string, known: readonly ConversationRef[]): ConversationRef | undefined {
  const found = known.find((c) => conversationKey(c) === key);
  if (found) return found;
  const [platform, id, threadId] = key.split(":");
  if (platform === undefined || !isPlatformName(platform) || !id) return undefined;
  return { platform, id, ...(threadId && { threadId }) };
}

/**
 * Edits every recorded message of the alert to its current state, but `skip` (the message a
 * button was pressed in: the click's reply replaces that one). Through the notifier: an edit
 * repeated changes nothing, and a message the platform no longer edits becomes a new one.
 */
export async function refreshMessages(deps: CoreDeps, alert: AlertRecord, skip?: string): Promise<void> {
  await refreshHomes(deps, `${alert.id}:v${alert.version}`);
  const messages = await messagesOf(deps.store, alert.id);
  const contents = await contentsOf(deps, alert.id);
  for (const [key, messageId] of messages) {
    if (messageId === skip) continue;
    const content = contents.get(key);
    if (content === undefined) continue;
    const reply = withoutPictures(await renderAlert(deps, alert, content.reply, content.conversation));
    await deps.notifier.post(
      content.conversation,
      { ...reply, replaces: messageId },
      `alert:${alert.id}:v${alert.version}:${key}`,
    );
  }
}

/**
 * An edit changes the alert's text and buttons only. A picture (the runway alert's balance chart)
 * was posted beside the message when the alert was raised, as its own message: neither Slack
 * (`chat.update` takes no files, and an upload carries no buttons) nor Telegram (a text message
 * does not become a photo) can put it into the edited message, and sending it again with every
 * Ack would post the chart anew each time (on Slack, the whole alert as a new message).
 */
function withoutPictures(reply: Reply): Reply {
  return { ...reply, blocks: reply.blocks.filter((b) => b.type !== "image") };
}

/**
 * The cause of an alert went away (the balance is back above the level): it is resolved by the
 * bot and its messages say so in place, but `skip` (a button's message its click's reply replaces).
 * Nothing happens when it was resolved already.
 */
export async function clearAlert(
  deps: CoreDeps,
  id: string,
  note: string,
  skip?: string,
): Promise<AlertRecord | null> {
  const result = await updateAlert(deps.store, id, (alert) =>
    alert.state === "resolved"
      ? { refused: "already resolved" }
      : {
          ...alert,
          state: "resolved",
          snoozedUntil: undefined,
          history: [...alert.history, { what: "cleared", at: deps.now(), by: "the bot", note }],
        },
  );
  if (!result.ok) return null;
  await refreshMessages(deps, result.alert, skip);
  return result.alert;
}

/** Clears the latest alert of `kind` about `subjectId`, if any is still unresolved. */
export async function clearAlertOf(
  deps: CoreDeps,
  kind: AlertKind,
  subjectId: string,
  note: string,
  skip?: string,
): Promise<AlertRecord | null> {
  const id = await alertOfSubject(deps.store, kind, subjectId);
  return id === null ? null : clearAlert(deps, id, note, skip);
}

/** A snoozed alert comes back: posted again where it was, unless it was resolved meanwhile. */
export async function reraiseAlert(deps: CoreDeps, id: string, until: number): Promise<void> {
  const result = await updateAlert(deps.store, id, (alert) =>
    alert.state !== "snoozed" || alert.snoozedUntil !== until
      ? { refused: "not snoozed by this snooze" }
      : {
          ...alert,
          state: alert.ackedBy ? "acknowledged" : "open",
          snoozedUntil: undefined,
          history: [
            ...alert.history,
            { what: "re-raised", at: deps.now(), by: "the bot", note: "snooze over" },
          ],
        },
  );
  if (!result.ok) return;
  const alert = result.alert;
  await refreshHomes(deps, `${id}:v${alert.version}`);
  const contents = await contentsOf(deps, id);
  const messages = await messagesOf(deps.store, id);
  for (const [key, { conversation, reply }] of contents) {
    // A new message (it comes back to the bottom of the channel); later changes edit that one.
    if (messages.has(key)) await deps.store.hashDel(MESSAGES_KEY(id), key);
    const message = await renderAlert(deps, alert, reply, conversation);
    await deps.notifier.post(conversation, message, `alert:${id}:reraise:${until}:${key}`);
  }
  if (!alert.ackedBy) await scheduleEscalation(deps, alert, `:after-snooze:${until}`);
}
