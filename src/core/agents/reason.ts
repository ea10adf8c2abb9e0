import { describeChar, isInvisible } from "../parse/echo.js";
import { fail, ok, type ParseResult } from "../parse/result.js";

// Cc: controls (line breaks, tabs, escapes); Cf: invisible format characters (bidi overrides,
// zero-width ones); Zl/Zp: line and paragraph separators.
const NOT_ONE_LINE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/**
 * An agent's reason is shown under its quote, where a person decides on a Confirm: one line of
 * plain text, so it cannot draw lines of its own there ("✅ Approved by … — safe to Confirm").
 * A line break or any control or invisible character is refused, and so is a blank reason.
 */
export function checkAgentReason(reason: string): ParseResult<string> {
  if (isInvisible(reason)) return fail("A reason is needed: say in one line why the energy is needed.");
  const bad = NOT_ONE_LINE.exec(reason)?.[0];
  if (bad !== undefined)
    return fail(
      `The reason must be one line of plain text; it contains ${describeChar(bad)}. Nothing was posted.`,
    );
  return ok(reason.trim());
}
