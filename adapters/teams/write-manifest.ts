import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { commands } from "../../src/core/index.js";
import { buildTeamsManifest, PLACEHOLDER_APP_ID } from "./manifest.js";

/**
 * Writes `teams/manifest.json` from the core's registry:
 * `npx tsx adapters/teams/write-manifest.ts [<TEAMS_APP_ID> [<PUBLIC_URL>]]` (no id: the
 * placeholder the checked-in file carries). Zip it with the two icons to upload the app.
 */
export const TEAMS_MANIFEST_PATH = fileURLToPath(new URL("../../teams/manifest.json", import.meta.url));

export const manifestJson = (appId = PLACEHOLDER_APP_ID, publicUrl?: string): string =>
  `${JSON.stringify(buildTeamsManifest(commands, appId, publicUrl), null, 2)}\n`;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [appId, publicUrl] = process.argv.slice(2);
  writeFileSync(TEAMS_MANIFEST_PATH, manifestJson(appId, publicUrl));
  process.stdout.write(`wrote ${TEAMS_MANIFEST_PATH}\n`);
}
