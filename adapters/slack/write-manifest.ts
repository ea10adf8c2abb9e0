import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { stringify } from "yaml";
import { commands } from "../../src/core/index.js";
import { buildManifest } from "./manifest.js";

/**
 * Rewrites `manifest.yml` from the core's registry: `npx tsx adapters/slack/write-manifest.ts`.
 * Run it after adding or renaming a verb (the manifest test says so when they differ).
 */
export const MANIFEST_PATH = fileURLToPath(new URL("../../manifest.yml", import.meta.url));

const HEADER = `# The Slack app manifest: paste it into "Create New App → From an app manifest".
# Replace https://opsbot.example.com with the bot's PUBLIC_URL. For Socket Mode (SLACK_APP_TOKEN),
# set settings.socket_mode_enabled to true. Generated from the command registry by
# \`npx tsx adapters/slack/write-manifest.ts\`; do not edit the slash commands by hand.
`;

function manifestText(): string {
  return `${HEADER}${stringify(buildManifest(commands), { lineWidth: 0 })}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(MANIFEST_PATH, manifestText());
  process.stdout.write(`wrote ${MANIFEST_PATH}\n`);
}
