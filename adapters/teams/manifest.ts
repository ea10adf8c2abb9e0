import type { CommandDefinition } from "../../src/core/index.js";

/**
 * The Teams app package's `manifest.json` (schema 1.17), built from the core's command registry
 * like Slack's manifest and Telegram's `setMyCommands`. Teams shows at most 10 commands per list:
 * `help` first, then the registry's order; every command still works when typed.
 */
export const PLACEHOLDER_APP_ID = "00000000-0000-0000-0000-000000000000";
const PLACEHOLDER_PUBLIC_URL = "https://opsbot.example.com";
const MAX_COMMANDS = 10;
const TITLE_MAX = 32;
const DESCRIPTION_MAX = 128;
const SCOPES = ["personal", "team", "groupChat"];

const clip = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`;
const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

function teamsCommandList(commands: readonly CommandDefinition[]) {
  const ordered = [...commands].sort((a, b) => Number(b.verb === "help") - Number(a.verb === "help"));
  return ordered.slice(0, MAX_COMMANDS).map((c) => ({
    title: clip(c.verb, TITLE_MAX),
    description: clip(capitalise(c.summary), DESCRIPTION_MAX),
  }));
}

export function buildTeamsManifest(
  commands: readonly CommandDefinition[],
  appId = PLACEHOLDER_APP_ID,
  publicUrl = PLACEHOLDER_PUBLIC_URL,
) {
  return {
    $schema: "https://developer.microsoft.com/en-us/json-schemas/teams/v1.17/MicrosoftTeams.schema.json",
    manifestVersion: "1.17",
    version: "1.0.0",
    id: appId,
    developer: {
      name: "opsbot",
      websiteUrl: publicUrl,
      privacyUrl: `${publicUrl}/healthz`,
      termsOfUseUrl: `${publicUrl}/healthz`,
    },
    name: { short: "opsbot", full: "opsbot: TRON energy and AML operations" },
    description: {
      short: "Energy orders, screening and alerts for the TRON service",
      full: "Quote and confirm energy orders, screen addresses against the deny list, work AML cases and answer alerts, with the same commands as on Slack and Telegram. In a channel, mention the bot: @opsbot help.",
    },
    icons: { color: "color.png", outline: "outline.png" },
    accentColor: "#1F6FEB",
    bots: [
      {
        botId: appId,
        scopes: SCOPES,
        supportsFiles: false,
        isNotificationOnly: false,
        commandLists: [{ scopes: SCOPES, commands: teamsCommandList(commands) }],
      },
    ],
    permissions: ["identity", "messageTeamMembers"],
    validDomains: [new URL(publicUrl).host],
  };
}
