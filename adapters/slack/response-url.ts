import { SlackApiError } from "./errors.js";
import type { MessageBody } from "./web.js";

/**
 * Answers through a command's or a click's `response_url`. The URL arrives inside the request,
 * so it is followed only when its origin is Slack's (`https://hooks.slack.com`) or that of
 * SLACK_API_URL (CONTRACT.md): a request that got past the signature check still cannot make the
 * bot POST to an address of someone's choosing. Callers fall back to the Web API otherwise.
 */
export const SLACK_HOOKS_ORIGIN = "https://hooks.slack.com";
export const DEFAULT_SLACK_API_URL = "https://slack.com/api/";
export const RESPONSE_URL_TIMEOUT_MS = 10_000;

export type ResponsePayload = MessageBody & {
  response_type?: "ephemeral" | "in_channel";
  replace_original?: boolean;
};

export interface ResponseUrls {
  /** True when `url` may be followed. */
  allows(url: string | undefined): url is string;
  post(url: string, payload: ResponsePayload): Promise<void>;
}

export function allowedResponseOrigins(slackApiUrl: string | undefined): Set<string> {
  return new Set([SLACK_HOOKS_ORIGIN, new URL(slackApiUrl ?? DEFAULT_SLACK_API_URL).origin]);
}

export function createResponseUrls(options: { slackApiUrl?: string; timeoutMs?: number }): ResponseUrls {
  const origins = allowedResponseOrigins(options.slackApiUrl);
  const timeoutMs = options.timeoutMs ?? RESPONSE_URL_TIMEOUT_MS;
  const allows = (url: string | undefined): url is string =>
    url !== undefined && URL.canParse(url) && origins.has(new URL(url).origin);

  return {
    allows,
    async post(url, payload) {
      if (!allows(url)) throw new SlackApiError("response_url", "origin_not_allowed", { retryable: false });
      let response: Response;
      let body: string;
      try {
        response = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json; charset=utf-8" },
          body: JSON.stringify(payload),
          signal: AbortSignal.timeout(timeoutMs),
          // A redirect would carry the POST to an origin nobody allowed.
          redirect: "error",
        });
        body = await response.text();
      } catch (error) {
        const timedOut = (error as { name?: unknown }).name === "TimeoutError";
        throw new SlackApiError("response_url", timedOut ? "timeout" : "network", { cause: error });
      }
      if (response.status === 200) return;
      throw responseError(response, body);
    },
  };
}

/** Slack answers a bad response_url call with a short text code (`expired_url`, `used_url`, …). */
function responseError(response: Response, body: string): SlackApiError {
  const code = /^[a-z_]{3,40}$/.test(body.trim()) ? body.trim() : `http_${response.status}`;
  if (response.status === 429) {
    const seconds = Number(response.headers.get("retry-after") ?? "1");
    return new SlackApiError("response_url", "ratelimited", {
      retryAfterMs: (Number.isFinite(seconds) && seconds > 0 ? seconds : 1) * 1000,
    });
  }
  return new SlackApiError("response_url", code, { retryable: response.status >= 500 });
}
