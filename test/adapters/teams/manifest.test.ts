import { readFileSync } from "node:fs";
import { decode } from "fast-png";
import { describe, expect, it } from "vitest";
import { buildTeamsManifest } from "../../../adapters/teams/manifest.js";
import { manifestJson, TEAMS_MANIFEST_PATH } from "../../../adapters/teams/write-manifest.js";
import { commands } from "../../../src/core/command-registry.js";

const REGENERATE = "teams/manifest.json is out of date: run `npx tsx adapters/teams/write-manifest.ts`";

describe("teams/manifest.json (the Teams app package)", () => {
  it("is what the command registry generates: help first, at most 10 commands, each a verb of the registry", () => {
    expect(JSON.parse(readFileSync(TEAMS_MANIFEST_PATH, "utf8")), REGENERATE).toEqual(
      JSON.parse(manifestJson()),
    );
    const listed = buildTeamsManifest(commands).bots[0]?.commandLists[0]?.commands ?? [];
    expect(listed.length).toBe(Math.min(10, commands.length));
    expect(listed[0]?.title).toBe("help");
    const verbs = new Set(commands.map((c) => c.verb));
    for (const c of listed) {
      expect(verbs.has(c.title)).toBe(true);
      expect(c.description.length).toBeLessThanOrEqual(128);
    }
  });

  it("carries the bot id given (TEAMS_APP_ID) as the app's and the bot's id, and the PUBLIC_URL's host", () => {
    const id = "0b0f1e2d-0000-4000-8000-0000000b0701";
    const manifest = buildTeamsManifest(commands, id, "https://bot.example.com");
    expect(manifest.id).toBe(id);
    expect(manifest.bots[0]?.botId).toBe(id);
    expect(manifest.validDomains).toEqual(["bot.example.com"]);
  });

  it("ships its icons: colour 192×192, outline 32×32", () => {
    const color = decode(readFileSync(new URL("../../../teams/color.png", import.meta.url)));
    const outline = decode(readFileSync(new URL("../../../teams/outline.png", import.meta.url)));
    expect([color.width, color.height]).toEqual([192, 192]);
    expect([outline.width, outline.height]).toEqual([32, 32]);
  });
});
