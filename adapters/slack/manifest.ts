import type { CommandDefinition } from "../../src/core/index.js";
import { SLACK_EVENTS_PATH } from "./receiver.js";

/**
 * The Slack app manifest (`manifest.yml` at the top of the repo), generated from the core's
 * registry so the slash commands Slack offers are exactly the ones the bot answers: each verb,
 * and `/ops <verb>` for all of them. `npx tsx adapters/slack/write-manifest.ts` rewrites the
 * file; a test fails when it no longer matches the registry.
 */
export const UMBRELLA_COMMAND = "/ops";
/** A placeholder host: replace it with PUBLIC_URL when creating the app. */
const PLACEHOLDER_PUBLIC_URL = "https://opsbot.example.com";
/**
 * Only what the bot does: slash commands (and their forms), posting (and updating) messages,
 * uploading statements, reading a payout CSV shared with `energy` (`files:read`), and reading
 * the messages of the channels it was invited to, for
 * paste-to-check (`channels:history` public, `groups:history` private, `app_mentions:read`), and
 * the members of the user groups named in the role lists (`usergroups:read`).
 */
export const BOT_SCOPES = [
  "commands",
  "chat:write",
  "files:write",
  "files:read",
  "channels:history",
  "groups:history",
  "app_mentions:read",
  "usergroups:read",
] as const;
/**
 * The App Home tab (needs no scope); messages in public and private channels the bot is in, and
 * mentions of the bot, for paste-to-check; a user group's members changed (roles from groups). No
 * direct messages, no other events.
 */
const BOT_EVENTS = [
  "app_home_opened",
  "message.channels",
  "message.groups",
  "app_mention",
  "subteam_members_changed",
] as const;

export interface SlashCommandEntry {
  command: string;
  url: string;
  description: string;
  usage_hint?: string;
  should_escape: false;
}

/** `energy <address> <amount>` → `<address> <amount>`: Slack shows the hint after the command. */
const usageHint = (command: CommandDefinition): string => command.usage.replace(/^\S+\s*/, "").trim();

function slashCommands(
  commands: readonly CommandDefinition[],
  publicUrl = PLACEHOLDER_PUBLIC_URL,
): SlashCommandEntry[] {
  const url = `${publicUrl}${SLACK_EVENTS_PATH}`;
  const entries: SlashCommandEntry[] = commands.map((command) => {
    const hint = usageHint(command);
    return {
      command: `/${command.verb}`,
      url,
      description: clip(capitalise(command.summary), 2000),
      ...(hint !== "" && { usage_hint: clip(hint, 1000) }),
      // Mentions stay as typed: arguments are addresses and amounts, not user references.
      should_escape: false,
    };
  });
  const verbs = commands.map((c) => c.verb).join("|");
  entries.push({
    command: UMBRELLA_COMMAND,
    url,
    description: "Any opsbot command in one place, e.g. /ops prices",
    usage_hint: clip(`<${verbs}> [arguments]`, 1000),
    should_escape: false,
  });
  return entries;
}

export function buildManifest(commands: readonly CommandDefinition[], publicUrl = PLACEHOLDER_PUBLIC_URL) {
  const requestUrl = `${publicUrl}${SLACK_EVENTS_PATH}`;
  return {
    _metadata: { major_version: 1, minor_version: 1 },
    display_information: {
      name: "opsbot",
      description: "Operate the TRON energy and AML service: screenings, energy, Host Mode, prices.",
      background_color: "#1f2937",
    },
    features: {
      app_home: {
        home_tab_enabled: true,
        messages_tab_enabled: false,
        messages_tab_read_only_enabled: false,
      },
      bot_user: { display_name: "opsbot", always_online: true },
      slash_commands: slashCommands(commands, publicUrl),
    },
    oauth_config: { scopes: { bot: [...BOT_SCOPES] } },
    settings: {
      event_subscriptions: { request_url: requestUrl, bot_events: [...BOT_EVENTS] },
      interactivity: { is_enabled: true, request_url: requestUrl },
      org_deploy_enabled: false,
      socket_mode_enabled: false,
      token_rotation_enabled: false,
    },
  };
}

const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
const clip = (s: string, max: number): string => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);
