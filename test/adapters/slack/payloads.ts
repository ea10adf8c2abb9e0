import { randomBytes } from "node:crypto";
import { signSlackRequest } from "../../../adapters/slack/verify.js";
import { FAKE_SLACK_TEAM, type FakeSlackApi, type FakeSlackMessage } from "../../fakes/slack-api.js";

/**
 * Request bodies as Slack sends them to `/slack/events` (shapes from Slack's payload docs): a
 * slash command form, a `block_actions` click, an `app_home_opened` event; and the `v0` headers.
 */
export const SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
export const CHANNEL = "C0OPS";
export const FORM = "application/x-www-form-urlencoded";
export type SlackUser = { id: string; name: string };

export interface Signed {
  raw: string;
  contentType: string;
}

const randomId = (): string => randomBytes(6).toString("hex");
const triggerId = (): string => `${Date.now()}.${randomId()}`;

export function signedHeaders(
  raw: string,
  timestamp = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const ts = String(timestamp);
  return { "x-slack-request-timestamp": ts, "x-slack-signature": signSlackRequest(SIGNING_SECRET, ts, raw) };
}

/** `/energy T… 65k` typed by `user` in `channel`; the answer URL comes from the fake. */
export function commandBody(
  line: string,
  o: { user: SlackUser; channel?: string; team?: string; responseUrl: string },
): Signed {
  const [name = "", ...rest] = line.split(" ");
  const form = new URLSearchParams({
    token: "verification-token",
    team_id: o.team ?? FAKE_SLACK_TEAM,
    team_domain: "fake",
    channel_id: o.channel ?? CHANNEL,
    channel_name: "ops",
    user_id: o.user.id,
    user_name: o.user.name,
    command: name,
    text: rest.join(" "),
    api_app_id: "A0OPSBOT",
    is_enterprise_install: "false",
    response_url: o.responseUrl,
    trigger_id: triggerId(),
  });
  return { raw: form.toString(), contentType: FORM };
}

/** The button element labelled `label` of `message`, as Slack echoes it in `actions[0]`. */
export function findButton(message: FakeSlackMessage, label: string | RegExp): Record<string, unknown> {
  const buttons = (message.blocks ?? [])
    .filter((b) => b.type === "actions")
    .flatMap((b) => b.elements as Record<string, unknown>[]);
  const found = buttons.find((b) => {
    const text = (b.text as { text: string }).text;
    return typeof label === "string" ? text === label : label.test(text);
  });
  if (!found) {
    const labels = buttons.map((b) => (b.text as { text: string }).text).join(", ");
    throw new Error(`no button ${String(label)} in the message; it has: ${labels || "none"}`);
  }
  return found;
}

/** A click by `user` on the button `label` of `message`. */
export function clickBody(
  message: FakeSlackMessage,
  label: string | RegExp,
  o: { user: SlackUser; team?: string; responseUrl: string; actionTs?: string; trigger?: string },
): Signed {
  const team = o.team ?? FAKE_SLACK_TEAM;
  const payload = {
    type: "block_actions",
    user: { id: o.user.id, username: o.user.name, name: o.user.name, team_id: team },
    api_app_id: "A0OPSBOT",
    token: "verification-token",
    container: {
      type: "message",
      message_ts: message.ts,
      channel_id: message.channel,
      is_ephemeral: message.ephemeralTo !== undefined,
    },
    trigger_id: o.trigger ?? triggerId(),
    team: { id: team, domain: "fake" },
    is_enterprise_install: false,
    channel: { id: message.channel, name: "ops" },
    ...(message.ephemeralTo === undefined && {
      message: { type: "message", ts: message.ts, text: message.text, blocks: message.blocks },
    }),
    response_url: o.responseUrl,
    actions: [
      {
        ...findButton(message, label),
        block_id: randomId(),
        action_ts: o.actionTs ?? `${Date.now() / 1000}`,
      },
    ],
  };
  return { raw: new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), contentType: FORM };
}

/** `user` opens the bot's Home tab. */
/** A slash command `line` typed by `user` in `channel`, its `response_url` minted by `fake`. */
export function slashCommand(
  fake: FakeSlackApi,
  line: string,
  o: { user: SlackUser; channel?: string; team?: string | undefined },
): Signed {
  const channel = o.channel ?? CHANNEL;
  const responseUrl = fake.responseUrl({ channel, user: o.user.id });
  return commandBody(line, { user: o.user, channel, responseUrl, ...(o.team && { team: o.team }) });
}

/** A click by `user` on the button `label` of `message`, its `response_url` minted by `fake`. */
export function buttonClick(
  fake: FakeSlackApi,
  message: FakeSlackMessage,
  label: string | RegExp,
  o: { user: SlackUser; team?: string | undefined; actionTs?: string | undefined },
): Signed {
  const responseUrl = fake.responseUrl({ channel: message.channel, user: o.user.id, messageTs: message.ts });
  const extra = { ...(o.team && { team: o.team }), ...(o.actionTs && { actionTs: o.actionTs }) };
  return clickBody(message, label, { user: o.user, responseUrl, ...extra });
}

export function homeOpenedBody(user: SlackUser, team = FAKE_SLACK_TEAM): Signed {
  const body = {
    token: "verification-token",
    team_id: team,
    api_app_id: "A0OPSBOT",
    event: {
      type: "app_home_opened",
      user: user.id,
      channel: "D0HOME",
      tab: "home",
      event_ts: `${Date.now() / 1000}`,
    },
    type: "event_callback",
    event_id: `Ev${randomId()}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ team_id: team, user_id: "U0FAKEBOT", is_bot: true, is_enterprise_install: false }],
  };
  return { raw: JSON.stringify(body), contentType: "application/json" };
}

/** Slack's `subteam_members_changed` event: members were added to or removed from a user group. */
export function subteamMembersChangedBody(
  group: string,
  change: { added?: string[]; removed?: string[] },
  team = FAKE_SLACK_TEAM,
): Signed {
  const body = {
    token: "verification-token",
    team_id: team,
    api_app_id: "A0OPSBOT",
    event: {
      type: "subteam_members_changed",
      subteam_id: group,
      team_id: team,
      date_previous_update: Math.floor(Date.now() / 1000) - 60,
      date_update: Math.floor(Date.now() / 1000),
      added_users: change.added ?? [],
      added_users_count: String(change.added?.length ?? 0),
      removed_users: change.removed ?? [],
      removed_users_count: String(change.removed?.length ?? 0),
      event_ts: `${Date.now() / 1000}`,
    },
    type: "event_callback",
    event_id: `Ev${randomId()}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ team_id: team, user_id: "U0FAKEBOT", is_bot: true, is_enterprise_install: false }],
  };
  return { raw: JSON.stringify(body), contentType: "application/json" };
}
