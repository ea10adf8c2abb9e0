import type { CoreDeps } from "../deps.js";
import type { ConversationRef } from "../invocation.js";
import { type Block, text } from "../reply.js";
import { alertLine, listAlerts } from "./commands.js";
import { opButtons, opsFor } from "./render.js";

/**
 * The alerts part of the home screen (Slack App Home): each open alert with its buttons. The
 * buttons are bound to the user's home (`home:<user>`), where the Slack adapter reports presses.
 */
const MAX_HOME_ALERTS = 10;

export async function alertHomeBlocks(deps: CoreDeps, home: ConversationRef): Promise<Block[]> {
  const alerts = (await listAlerts(deps, false)).slice(0, MAX_HOME_ALERTS);
  if (alerts.length === 0) return [text("Alerts: none open.")];
  const now = deps.now();
  const blocks: Block[] = [text(`Alerts (${alerts.length} open):`)];
  for (const alert of alerts) {
    blocks.push(text(alertLine(alert, now)));
    blocks.push(...(await opButtons(deps, home, [alert.id], opsFor(alert))));
  }
  return blocks;
}
