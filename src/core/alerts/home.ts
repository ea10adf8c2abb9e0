import type { CoreDeps } from "../deps.js";
import { type Actor, actorKey } from "../invocation.js";
import { homeConversation } from "../platforms.js";
import { type Block, code, context, text } from "../reply.js";
import { can, roleOf } from "../roles.js";
import { alertLine, listAlerts } from "./commands.js";
import { opButtons, opsFor } from "./render.js";

/**
 * The alerts part of the home screen (Slack App Home): the open alerts, newest first, with age,
 * owner and (for operators and admins) their buttons, bound to the user's home conversation.
 * Whoever opened their home lately is remembered, so a change of any alert publishes their view
 * again (a notice to their home, which the Slack adapter turns into `views.publish`).
 */
const MAX_HOME_ALERTS = 10;
const VIEWERS_KEY = "home:viewers";
/** A home not opened for a week is not refreshed any more (until it is opened again). */
const VIEWER_TTL_MS = 7 * 24 * 3_600_000;

export async function alertHomeBlocks(deps: CoreDeps, actor: Actor): Promise<Block[]> {
  await deps.store.hashSet(VIEWERS_KEY, actorKey(actor), String(deps.now()));
  const alerts = await listAlerts(deps, false);
  if (alerts.length === 0) return [text("Alerts: none open.")];
  const now = deps.now();
  const home = homeConversation(deps.platforms, actor);
  const operator = can(roleOf(actor, deps.settings), "operator");
  const blocks: Block[] = [text(`Alerts (${alerts.length} open or snoozed):`)];
  for (const alert of alerts.slice(0, MAX_HOME_ALERTS)) {
    blocks.push(text(alertLine(alert, now)));
    if (operator) blocks.push(...(await opButtons(deps, home, [alert.id], opsFor(alert))));
  }
  blocks.push(context("Every alert is listed by ", code("/ops alerts"), "."));
  return blocks;
}

/** Publishes again the homes opened in the last week (through the notifier: paced, coalesced). */
export async function refreshHomes(
  deps: Pick<CoreDeps, "store" | "notifier" | "now" | "logger" | "platforms">,
  reason: string,
): Promise<void> {
  try {
    const viewers = await deps.store.hashGetAll(VIEWERS_KEY);
    for (const [key, seen] of Object.entries(viewers)) {
      if (deps.now() - Number(seen) > VIEWER_TTL_MS) {
        await deps.store.hashDel(VIEWERS_KEY, key);
        continue;
      }
      const [platform, userId] = [key.slice(0, key.indexOf(":")), key.slice(key.indexOf(":") + 1)];
      // Only a platform with a home screen has a view to publish again.
      const facts = [...deps.platforms.values()].find((f) => f.platform === platform);
      if (facts?.home === undefined) continue;
      const line = "Alerts changed: the home view is published again.";
      await deps.notifier.post(
        { platform: facts.platform, id: facts.home.conversationId(userId) },
        { summary: line, blocks: [text(line)], visibility: "public" },
        `home-refresh:${key}:${reason}`,
      );
    }
  } catch (error) {
    deps.logger.warn({ err: error }, "could not refresh the App Home views after an alert changed");
  }
}
