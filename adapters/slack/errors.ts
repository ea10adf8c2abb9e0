import { ChatSendError } from "../../src/core/index.js";
/**
 * One error class for everything Slack refuses or fails, shaped for the job queue: `retryable`
 * false for answers that no retry can change (the channel is gone, the bot was removed, the
 * token is revoked), `retryAfterMs` for a 429. The message names the method and Slack's code and
 * never a token, URL path or request body.
 */
/**
 * The core's `ChatSendError` with the Web API method it came from. `code` is Slack's error string
 * (`channel_not_found`, `ratelimited`), or `http_<status>`, `network`, `timeout`.
 */
export class SlackApiError extends ChatSendError {
  override readonly name: string = "SlackApiError";
  /** The Web API method, or `response_url` / `file_upload`. */
  readonly method: string;

  constructor(
    method: string,
    code: string,
    options: { retryable?: boolean; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(`Slack ${method} failed: ${code}`, {
      code,
      retryable: options.retryable ?? isRetryableCode(code),
      retryAfterMs: options.retryAfterMs,
      cause: options.cause,
    });
    this.method = method;
  }
}

export const isSlackApiError = (error: unknown): error is SlackApiError => error instanceof SlackApiError;

/**
 * Slack's answers that are final for this message. Anything not listed (`ratelimited`,
 * `internal_error`, `fatal_error`, `service_unavailable`, HTTP 5xx, network) is worth a retry.
 */
const PERMANENT_CODES = new Set([
  "channel_not_found",
  "not_in_channel",
  "is_archived",
  "user_not_found",
  "user_not_in_channel",
  "cant_update_message",
  "message_not_found",
  "edit_window_closed",
  "msg_too_long",
  "no_text",
  "invalid_blocks",
  "invalid_blocks_format",
  "invalid_arguments",
  "invalid_auth",
  "not_authed",
  "account_inactive",
  "token_revoked",
  "token_expired",
  "missing_scope",
  "no_permission",
  "restricted_action",
  "ekm_access_denied",
  "team_access_not_granted",
  "not_allowed_token_type",
  "invalid_response_url",
  "expired_url",
  "used_url",
  "http_400",
  "http_403",
  "http_404",
  "http_410",
]);

const isRetryableCode = (code: string): boolean => !PERMANENT_CODES.has(code);

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;

/**
 * Any failure of `@slack/web-api` as a SlackApiError. Its coded errors: `…_rate_limited_error`
 * (`retryAfter` in seconds), `…_platform_error` (`data.error`), `…_http_error` (`statusCode`),
 * `…_request_error` (network).
 */
export function fromWebApiError(method: string, error: unknown): SlackApiError {
  if (error instanceof SlackApiError) return error;
  const e = record(error) ?? {};
  switch (e.code) {
    case "slack_webapi_rate_limited_error": {
      const seconds = typeof e.retryAfter === "number" ? e.retryAfter : 1;
      return new SlackApiError(method, "ratelimited", { retryAfterMs: seconds * 1000, cause: error });
    }
    case "slack_webapi_platform_error": {
      const code = record(e.data)?.error;
      return new SlackApiError(method, typeof code === "string" ? code : "unknown_error", { cause: error });
    }
    case "slack_webapi_http_error":
      return new SlackApiError(method, `http_${String(e.statusCode ?? "error")}`, { cause: error });
    case "slack_webapi_request_error":
      return new SlackApiError(method, "network", { cause: error });
    default:
      return new SlackApiError(method, "unexpected", { cause: error });
  }
}
