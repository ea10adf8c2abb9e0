import { isServiceError } from "../../service/errors.js";
import { toUserLine } from "../errors.js";
import { clip } from "../format.js";

/**
 * One plain line per failed deletion, from the spec's table (400 not found / not a sub-user, 401
 * missing key header, 403 not the parent or invalid key or IP, 500 deletion failed). The deletion
 * runs in one transaction, so a refusal changed nothing.
 */
const KEY_CHECK = "an admin should check SERVICE_API_KEY and SERVICE_REAL_IP";

export function subuserFailureLine(
  error: unknown,
  userId: number,
  options: { recovered?: boolean } = {},
): string {
  if (!isServiceError(error)) return toUserLine(error);
  const said = clip(error.message.replace(/[.\s]+$/, ""), 100);
  if (error.kind === "timeout" || error.kind === "network" || error.kind === "invalid_reply") {
    return `The service gave no readable answer, so it is not known whether sub-user ${userId} was deleted. The bot does not send a deletion twice: run subuser delete ${userId} again only after checking (a sub-user already deleted answers "not found").`;
  }
  if (error.kind === "rate_limited")
    return `Not deleted: the service is rate limiting the bot (429); nothing changed. Try again in a minute.`;
  switch (error.httpStatus) {
    case 400:
      return options.recovered
        ? `Sub-user ${userId} is gone: the service now says it is not found or not a sub-user (400: ${said}); the attempt made before the bot restarted most likely deleted it.`
        : `Not deleted: the service says user ${userId} does not exist or is not a sub-user (400: ${said}); only sub-users (external id starting with SUB) can be deleted. Nothing changed.`;
    case 401:
      return `Not deleted: the service says the API key header is missing (401); ${KEY_CHECK}. Nothing changed.`;
    case 403:
      return `Not deleted: the service refused (403: ${said}): user ${userId} is not a sub-user of this account, or the bot's key or IP is not accepted (${KEY_CHECK}). Nothing changed.`;
    case 422:
      return `Not deleted: the service did not accept ${userId} as a user_id (422). Nothing changed.`;
    case 500:
      return `Not deleted: the service says the deletion failed (500: ${said}); it runs in one transaction, so nothing changed. Try again later.`;
  }
  return `Not deleted: ${toUserLine(error).replace(/\.$/, "")}. Nothing changed.`;
}
