import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, secretValues } from "../../src/config/load-config.js";

const TEAMS = {
  TEAMS_APP_ID: "0b0f1e2d-0000-4000-8000-0000000b0701",
  TEAMS_APP_PASSWORD: "app-secret~value",
  TEAMS_TENANT_ID: "5f1e2d3c-0000-4000-8000-00000000a11c",
  PUBLIC_URL: "https://bot.example.com",
};

function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig: Microsoft Teams", () => {
  it("turns Teams on with its three variables and PUBLIC_URL, the URLs defaulted as the contract says", () => {
    const config = loadConfig(TEAMS);
    expect(config.teams).toEqual({
      appId: TEAMS.TEAMS_APP_ID,
      appPassword: TEAMS.TEAMS_APP_PASSWORD,
      tenantId: TEAMS.TEAMS_TENANT_ID,
      openIdUrl: "https://login.botframework.com/v1/.well-known/openidconfiguration",
      loginUrl: `https://login.microsoftonline.com/${TEAMS.TEAMS_TENANT_ID}`,
      serviceOrigins: ["https://smba.trafficmanager.net"],
      publicUrl: "https://bot.example.com",
    });
    expect(secretValues(config)).toContain(TEAMS.TEAMS_APP_PASSWORD);
    expect(loadConfig({}).teams).toBeUndefined();
  });

  it("refuses half a set-up, a missing PUBLIC_URL, and any URL that is not https, without echoing a value", () => {
    expect(refusal({ TEAMS_APP_ID: TEAMS.TEAMS_APP_ID })).toMatch(
      /^TEAMS_APP_PASSWORD: required when TEAMS_APP_ID is set/,
    );
    const { PUBLIC_URL: _, ...noPublicUrl } = TEAMS;
    expect(refusal(noPublicUrl)).toMatch(/^PUBLIC_URL: required when Teams is on/);
    expect(refusal({ ...TEAMS, TEAMS_OPENID_URL: "http://login.example/openid" })).toMatch(
      /^TEAMS_OPENID_URL: /,
    );
    expect(refusal({ ...TEAMS, TEAMS_SERVICE_URLS: "https://smba.trafficmanager.net/amer/" })).toMatch(
      /^TEAMS_SERVICE_URLS: /,
    );
    expect(refusal({ ...TEAMS, TEAMS_APP_ID: "not-a-guid" })).not.toContain("not-a-guid");
  });

  it("reads teams:<id> in the role lists, OPS_ONCALL and OPS_AGENT_CHANNEL, and ALERT_TEAMS_CONVERSATION", () => {
    const id = "0c0c0c0c-0000-4000-8000-00000000a001";
    const config = loadConfig({
      ...TEAMS,
      OPS_ADMINS: `teams:${id}`,
      OPS_ONCALL: `teams:${id}`,
      OPS_AGENT_CHANNEL: "teams:19:abc123@thread.tacv2",
      ALERT_TEAMS_CONVERSATION: "19:abc123@thread.tacv2",
    });
    expect(config.core.admins).toEqual([`teams:${id}`]);
    expect(config.agents.channel).toEqual({ platform: "teams", id: "19:abc123@thread.tacv2" });
    expect(config.alerts.teamsConversation).toBe("19:abc123@thread.tacv2");
    expect(refusal({ OPS_AGENT_CHANNEL: "teams:19:abc123@thread.tacv2" })).toMatch(
      /^OPS_AGENT_CHANNEL: a teams:/,
    );
  });
});
