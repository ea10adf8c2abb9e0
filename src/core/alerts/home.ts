import type { CoreDeps } from "../deps.js";
import type { Actor } from "../invocation.js";
import { type Block, code, context, text } from "../reply.js";
import { alertLine, listAlerts } from "./commands.js";

/**
 * The alerts part of the home screen (Slack App Home): the open alerts, newest first, with age
 * and owner. Ack / Snooze / Resolve are pressed on the alert's own message (or its escalation).
 */
const MAX_HOME_ALERTS = 10;

export async function alertHomeBlocks(deps: CoreDeps, _actor: Actor): Promise<Block[]> {
  const alerts = await listAlerts(deps, false);
  if (alerts.length === 0) return [text("Alerts: none open.")];
  const now = deps.now();
  const shown = alerts.slice(0, MAX_HOME_ALERTS);
  const blocks: Block[] = [text(`Alerts (${alerts.length} open or snoozed):`)];
  blocks.push(text(shown.map((a) => alertLine(a, now)).join("\n")));
  blocks.push(
    context("Ack, Snooze 1h or Resolve on the alert's message; ", code("/ops alerts"), " lists them all."),
  );
  return blocks;
}
