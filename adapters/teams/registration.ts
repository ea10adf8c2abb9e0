import type { PlatformRegistration } from "../../src/platform.js";
import { TEAMS_PLATFORM } from "./platform.js";
import { createTeamsAdapter } from "./teams-adapter.js";

/** Microsoft Teams: on with TEAMS_APP_ID, TEAMS_APP_PASSWORD and TEAMS_TENANT_ID; its alert channel is ALERT_TEAMS_CONVERSATION. */
export const TEAMS_REGISTRATION: PlatformRegistration = {
  facts: TEAMS_PLATFORM,
  variables: [
    "TEAMS_APP_ID",
    "TEAMS_APP_PASSWORD",
    "TEAMS_TENANT_ID",
    "TEAMS_OPENID_URL",
    "TEAMS_LOGIN_URL",
    "TEAMS_SERVICE_URLS",
  ],
  on: (config) => config.teams !== undefined,
  alerts: {
    variable: "ALERT_TEAMS_CONVERSATION",
    conversation: ({ alerts }) =>
      alerts.teamsConversation
        ? { platform: TEAMS_PLATFORM.platform, id: alerts.teamsConversation }
        : undefined,
  },
  create: ({ config, core, deps, logger }) => {
    if (!config.teams) throw new Error("Teams is not configured");
    return createTeamsAdapter({
      config: config.teams,
      core,
      store: deps.store,
      logger,
      ...(config.alerts.teamsConversation && { alertConversation: config.alerts.teamsConversation }),
    });
  },
};
