import { commands, homeSummary } from "../../src/core/index.js";
import type { PlatformRegistration } from "../../src/platform.js";
import { SLACK_PLATFORM } from "./platform.js";
import { createSlackAdapter } from "./slack-adapter.js";

/** Slack: on with SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET; its alert channel is ALERT_SLACK_CHANNEL. */
export const SLACK_REGISTRATION: PlatformRegistration = {
  facts: SLACK_PLATFORM,
  variables: ["SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "SLACK_API_URL", "SLACK_TEAM_ID"],
  on: (config) => config.slack !== undefined,
  alerts: {
    variable: "ALERT_SLACK_CHANNEL",
    conversation: ({ alerts }) =>
      alerts.slackChannel ? { platform: SLACK_PLATFORM.platform, id: alerts.slackChannel } : undefined,
  },
  create: ({ config, core, deps, logger }) => {
    if (!config.slack) throw new Error("Slack is not configured");
    return createSlackAdapter({
      config: config.slack,
      core,
      store: deps.store,
      logger,
      homeReply: (actor) => homeSummary(deps, { actor, commands }),
      fallback: (conversation, reply) => deps.notifier.post(conversation, reply),
      ...(deps.settings.userGroups && {
        userGroups: {
          directory: deps.settings.userGroups,
          lists: { OPS_ADMINS: deps.settings.admins, OPS_OPERATORS: deps.settings.operators },
        },
      }),
    });
  },
};
