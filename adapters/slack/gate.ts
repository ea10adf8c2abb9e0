import type { Store } from "../../src/store/store.js";

/**
 * What every verified Slack request passes before Bolt sees it: the workspace check (a valid
 * signature proves Slack, not the workspace) and the once-only mark. Slack re-sends a request it
 * thinks was lost (`X-Slack-Retry-Num`); the same request must not run a command or press a
 * button twice, on this instance or any other, so its identity is claimed with SET NX in the
 * shared store before anything runs.
 */

/** Longer than Slack's retry schedule (retries within minutes) with room to spare. */
const SLACK_DEDUP_TTL_MS = 60 * 60_000;

export type SlackBody = Record<string, unknown>;

export type Admission =
  | { ok: true }
  | { ok: false; reason: "other_team"; team: string | undefined }
  | { ok: false; reason: "duplicate"; identity: string };

export interface SlackGate {
  /** Both steps at once, before anything runs (events, Socket Mode). */
  admit(body: SlackBody): Promise<Admission>;
  /** The workspace check alone: no store, so the ack never waits on it. */
  refusal(body: SlackBody): Admission | undefined;
  /** The once-only mark alone (after `refusal`), taken after the ack and before anything runs. */
  claim(body: SlackBody): Promise<Admission>;
}

export interface GateOptions {
  store: Store;
  /** SLACK_TEAM_ID: when set, any other workspace is refused. */
  teamId?: string;
  ttlMs?: number;
}

const record = (value: unknown): SlackBody | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as SlackBody) : undefined;
const str = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined;

/** The workspace a request comes from, wherever its kind of payload keeps it. */
function teamOf(body: SlackBody): string | undefined {
  return (
    str(body.team_id) ??
    str(record(body.team)?.id) ??
    str(record(body.user)?.team_id) ??
    str(record(body.view)?.team_id)
  );
}

/**
 * The identity of one request, the same on every retry of it: `trigger_id` for a slash command,
 * the user, the message and `action_ts` + `action_id` for a button (`action_id` is the button's
 * place in its message, so two people clicking at the same instant, or one person on two
 * messages, must never share an identity), `event_id` for an event.
 */
function requestIdentity(body: SlackBody): string | undefined {
  if (typeof body.command === "string") {
    const trigger = str(body.trigger_id);
    return trigger && `command:${trigger}`;
  }
  if (body.type === "block_actions") {
    const action = record(Array.isArray(body.actions) ? body.actions[0] : undefined);
    const ts = str(action?.action_ts);
    const id = str(action?.action_id);
    const user = str(record(body.user)?.id) ?? "-";
    const container = record(body.container);
    const message = str(container?.message_ts) ?? str(record(body.message)?.ts) ?? "-";
    return ts && id ? `action:${user}:${message}:${ts}:${id}` : undefined;
  }
  if (body.type === "event_callback") {
    const eventId = str(body.event_id);
    return eventId && `event:${eventId}`;
  }
  return undefined;
}

export function createSlackGate(options: GateOptions): SlackGate {
  const ttlMs = options.ttlMs ?? SLACK_DEDUP_TTL_MS;
  const refusal = (body: SlackBody): Admission | undefined => {
    // The Events API's URL check carries no workspace and does nothing but echo its challenge.
    if (body.type === "url_verification") return undefined;
    const team = teamOf(body);
    return options.teamId !== undefined && team !== options.teamId
      ? { ok: false, reason: "other_team", team }
      : undefined;
  };
  const claim = async (body: SlackBody): Promise<Admission> => {
    if (body.type === "url_verification") return { ok: true };
    const identity = requestIdentity(body);
    if (identity === undefined) return { ok: true };
    const first = await options.store.setIfNotExists(
      `slack:request:${teamOf(body) ?? "-"}:${identity}`,
      "1",
      ttlMs,
    );
    return first ? { ok: true } : { ok: false, reason: "duplicate", identity };
  };
  return {
    refusal,
    claim,
    async admit(body) {
      return refusal(body) ?? claim(body);
    },
  };
}

/** A request body as Slack sends it: form fields, a form `payload` of JSON, or JSON. */
export function parseSlackBody(raw: Buffer, contentType: string | undefined): SlackBody | undefined {
  const text = raw.toString("utf8");
  try {
    if ((contentType ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded")) {
      const form = new URLSearchParams(text);
      const payload = form.get("payload");
      return payload === null ? Object.fromEntries(form) : record(JSON.parse(payload));
    }
    return record(JSON.parse(text));
  } catch {
    return undefined;
  }
}
