import { echo } from "../parse/echo.js";
import type { ParseResult } from "../parse/result.js";

const SUBUSER_USAGE = "use subuser delete <user_id>, e.g. subuser delete 48213";

/** `subuser delete <user_id>`: one positive whole number (the sub-user's numeric id), nothing else. */
export function parseSubuserArgs(args: readonly string[]): ParseResult<number> {
  const [raw, ...extra] = args;
  if (raw === undefined) return { ok: false, error: `no user_id given: ${SUBUSER_USAGE}` };
  if (extra.length > 0) return { ok: false, error: `subuser delete takes one user_id: ${SUBUSER_USAGE}` };
  const id = /^[0-9]{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(id) || id <= 0) {
    return {
      ok: false,
      error: `${echo(raw)} is not a user_id: it must be a positive whole number (the sub-user's numeric id); ${SUBUSER_USAGE}`,
    };
  }
  return { ok: true, value: id };
}
