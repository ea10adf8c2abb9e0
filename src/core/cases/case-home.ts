import type { CoreDeps } from "../deps.js";
import type { Actor } from "../invocation.js";
import { type Block, code, context, text } from "../reply.js";
import { CLOSED_STATES, readCases } from "./case-record.js";
import { caseLine } from "./case-render.js";

/** The cases part of the home screen (Slack App Home): the open cases, newest first. */
const MAX_HOME_CASES = 10;

export async function caseHomeBlocks(deps: CoreDeps, _actor: Actor): Promise<Block[]> {
  const open = (await readCases(deps.store))
    .filter((c) => !CLOSED_STATES.has(c.state))
    .sort((a, b) => b.openedAt - a.openedAt);
  if (open.length === 0) return [text("AML cases: none open.")];
  const now = deps.now();
  return [
    text(`AML cases (${open.length} open):`),
    text(
      open
        .slice(0, MAX_HOME_CASES)
        .map((c) => `• ${caseLine(c, now)}`)
        .join("\n"),
    ),
    context(
      "Every case is listed by ",
      code("/ops cases"),
      "; its timeline by ",
      code("/ops case <id>"),
      ".",
    ),
  ];
}
