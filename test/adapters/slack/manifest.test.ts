import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { BOT_SCOPES, buildManifest, UMBRELLA_COMMAND } from "../../../adapters/slack/manifest.js";
import { MANIFEST_PATH } from "../../../adapters/slack/write-manifest.js";
import { commands } from "../../../src/core/command-registry.js";
import { CHANNEL, messageText, OPERATOR, startSlackHarness } from "./harness.js";

interface ManifestCommand {
  command: string;
  url: string;
  description: string;
  usage_hint?: string;
  should_escape: boolean;
}

const onDisk = parse(readFileSync(MANIFEST_PATH, "utf8")) as ReturnType<typeof buildManifest>;
const listed = (onDisk.features.slash_commands as ManifestCommand[]).map((c) => c.command);
const REGENERATE = "manifest.yml is out of date: run `npx tsx adapters/slack/write-manifest.ts`";

describe("manifest.yml", () => {
  it("lists exactly the registry's verbs and the umbrella /ops, nothing more", () => {
    const expected = [...commands.map((c) => `/${c.verb}`), UMBRELLA_COMMAND];
    expect([...listed].sort(), REGENERATE).toEqual([...expected].sort());
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed).toContain("/digest");
  });

  it("is the manifest the registry generates (descriptions and usage hints included)", () => {
    expect(onDisk, REGENERATE).toEqual(buildManifest(commands));
    for (const entry of onDisk.features.slash_commands as ManifestCommand[]) {
      expect(entry.command).toMatch(/^\/[a-z0-9_-]{1,31}$/);
      expect(entry.description.length).toBeGreaterThan(0);
      expect(entry.should_escape).toBe(false);
    }
  });

  it("sends commands, clicks and events to <PUBLIC_URL>/slack/events, with the minimal events and bot scopes", () => {
    const url = "https://opsbot.example.com/slack/events";
    expect(new Set((onDisk.features.slash_commands as ManifestCommand[]).map((c) => c.url))).toEqual(
      new Set([url]),
    );
    expect(onDisk.settings.interactivity).toEqual({ is_enabled: true, request_url: url });
    expect(onDisk.settings.event_subscriptions).toEqual({
      request_url: url,
      bot_events: [
        "app_home_opened",
        "message.channels",
        "message.groups",
        "app_mention",
        // Roles from user groups: a group's members changed.
        "subteam_members_changed",
      ],
    });
    expect(onDisk.oauth_config.scopes.bot).toEqual([...BOT_SCOPES]);
    // Paste-to-check reads the channels the bot is in, and a payout CSV shared there; the members of
    // the user groups named in the role lists; no DMs, no users.
    expect(onDisk.oauth_config.scopes.bot).toEqual([
      "commands",
      "chat:write",
      "files:write",
      "files:read",
      "channels:history",
      "groups:history",
      "app_mentions:read",
      "usergroups:read",
    ]);
    expect(onDisk.features.app_home.home_tab_enabled).toBe(true);
    expect(onDisk.settings.socket_mode_enabled).toBe(false);
  });

  it("every listed command is answered by the bot, none as an unknown command", async () => {
    const h = await startSlackHarness();
    for (const command of listed) {
      // `help <verb>` of each verb, so no command spends anything or calls the service.
      const line = command === UMBRELLA_COMMAND ? `${command} help` : `/help ${command.slice(1)}`;
      const { response } = await h.command(line);
      expect(response.status).toBe(200);
    }
    await h.settle();
    const answers = h.fake.channelMessages(CHANNEL).map(messageText);
    expect(answers).toHaveLength(listed.length);
    for (const answer of answers) expect(answer).not.toMatch(/unknown command|There is no command/);
    expect(h.fake.ephemerals(OPERATOR.id)).toEqual([]);
  });

  it("the bot answers each verb typed as its own slash command (not only through help)", async () => {
    const h = await startSlackHarness();
    // A verb with no arguments runs, answers its own usage line or opens its form; never "unknown command".
    for (const command of listed) await h.command(command);
    await h.settle();
    const seen = [...h.fake.channelMessages(CHANNEL), ...h.fake.ephemerals(OPERATOR.id)].map(messageText);
    // A verb that needs arguments and has a form opens it instead of answering.
    const forms = h.fake.views().map((v) => JSON.parse(String(v.view.private_metadata)).verb);
    expect(forms.sort()).toEqual(["energy", "statement"]);
    expect(seen).toHaveLength(listed.length - forms.length);
    for (const text of seen) expect(text).not.toMatch(/unknown command/);
  });
});
