import { randomBytes } from "node:crypto";
import { FAKE_SLACK_BOT_USER, FAKE_SLACK_TEAM, type FakeSlackView } from "../../fakes/slack-api.js";
import { FORM, type Signed, type SlackUser } from "./payloads.js";

/**
 * Events API and modal payloads as Slack sends them (shapes from Slack's docs): a channel message
 * (`message.channels`), a mention (`app_mention`), and the `view_submission` of a modal the bot
 * opened, with the values a person typed into its inputs.
 */
const randomId = (): string => randomBytes(6).toString("hex");
let seq = 0;
const nextTs = (): string => `${1_700_100_000 + ++seq}.${String(seq).padStart(6, "0")}`;

export interface MessageEventOptions {
  user?: SlackUser;
  channel?: string;
  channelType?: "channel" | "group" | "im";
  subtype?: string;
  botId?: string;
  threadTs?: string;
  ts?: string;
}

function eventCallback(event: Record<string, unknown>): Signed {
  const body = {
    token: "verification-token",
    team_id: FAKE_SLACK_TEAM,
    api_app_id: "A0OPSBOT",
    event,
    type: "event_callback",
    event_id: `Ev${randomId()}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ team_id: FAKE_SLACK_TEAM, user_id: FAKE_SLACK_BOT_USER, is_bot: true }],
  };
  return { raw: JSON.stringify(body), contentType: "application/json" };
}

/** A message typed into a channel the bot is in. */
export function messageEventBody(text: string, o: MessageEventOptions & { user: SlackUser }): Signed {
  const ts = o.ts ?? nextTs();
  return eventCallback({
    type: "message",
    ...(o.subtype !== undefined && { subtype: o.subtype }),
    ...(o.botId !== undefined && { bot_id: o.botId }),
    user: o.user.id,
    text,
    ts,
    channel: o.channel ?? "C0OPS",
    channel_type: o.channelType ?? "channel",
    event_ts: ts,
    ...(o.threadTs !== undefined && { thread_ts: o.threadTs }),
  });
}

/** A message that mentions the bot (`<@U0FAKEBOT> …`). */
export function appMentionBody(text: string, o: { user: SlackUser; channel?: string }): Signed {
  const ts = nextTs();
  return eventCallback({
    type: "app_mention",
    user: o.user.id,
    text,
    ts,
    channel: o.channel ?? "C0OPS",
    event_ts: ts,
  });
}

/** The person presses the modal's submit button after typing `values` (block_id → text). */
export function viewSubmissionBody(
  opened: FakeSlackView,
  values: Record<string, string>,
  o: { user: SlackUser },
): Signed {
  const blocks = (opened.view.blocks ?? []) as { block_id: string; element: { action_id: string } }[];
  const state: Record<string, Record<string, { type: string; value: string | null }>> = {};
  for (const block of blocks) {
    state[block.block_id] = {
      [block.element.action_id]: { type: "plain_text_input", value: values[block.block_id] ?? null },
    };
  }
  const payload = {
    type: "view_submission",
    team: { id: FAKE_SLACK_TEAM, domain: "fake" },
    user: { id: o.user.id, username: o.user.name, name: o.user.name, team_id: FAKE_SLACK_TEAM },
    api_app_id: "A0OPSBOT",
    token: "verification-token",
    trigger_id: `${Date.now()}.${randomId()}`,
    view: {
      ...opened.view,
      id: opened.id,
      team_id: FAKE_SLACK_TEAM,
      state: { values: state },
      hash: randomId(),
    },
    response_urls: [],
    is_enterprise_install: false,
  };
  return { raw: new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), contentType: FORM };
}

/** A file shared into a channel with a message (`subtype: file_share`), as Slack sends it. */
export function fileShareEventBody(
  text: string,
  fileId: string,
  o: { user: SlackUser; channel?: string },
): Signed {
  const ts = nextTs();
  return eventCallback({
    type: "message",
    subtype: "file_share",
    user: o.user.id,
    text,
    ts,
    channel: o.channel ?? "C0OPS",
    channel_type: "channel",
    event_ts: ts,
    files: [{ id: fileId, name: "payouts.csv", mimetype: "text/csv", filetype: "csv" }],
  });
}
