import { request } from "undici";
import { withDeadline } from "../../src/clock.js";
import { SlackApiError } from "./errors.js";
import type { MessageBody } from "./web.js";

/**
 * Answers through a command's or a click's `response_url`. The URL arrives inside the request,
 * so it is followed only when its origin is Slack's (`https://hooks.slack.com`) or that of
 * SLACK_API_URL (CONTRACT.md): a request that got past the signature check still cannot make the
 * bot POST to an address of someone's choosing. Callers fall back to the Web API otherwise.
 */
const SLACK_HOOKS_ORIGIN = "https://hooks.slack.com";
const DEFAULT_SLACK_API_URL = "https://slack.com/api/";
const RESPONSE_URL_TIMEOUT_MS = 10_000;

export type ResponsePayload = MessageBody & {
  response_type?: "ephemeral" | "in_channel";
  replace_original?: boolean;
};

export interface ResponseUrls {
  /** True when `url` may be followed. */
  allows(url: string | undefined): url is string;
  post(url: string, payload: ResponsePayload): Promise<void>;
}

function allowedResponseOrigins(slackApiUrl: string | undefined): Set<string> {
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
      let response: Answer;
      try {
        // undici's request, not fetch: several times less work per answer, which every command
        // and click pays while other requests wait for their ack. It never follows a redirect
        // (one would carry the POST to an origin nobody allowed): a 3xx is refused below.
        response = await withDeadline(timeoutMs, async (signal) => {
          const reply = await request(url, {
            method: "POST",
            headers: { "content-type": "application/json; charset=utf-8" },
            body: JSON.stringify(payload),
            signal,
          });
          return {
            status: reply.statusCode,
            retryAfter: reply.headers["retry-after"],
            body: await reply.body.text(),
          };
        });
      } catch (error) {
        const timedOut = (error as { name?: unknown }).name === "TimeoutError";
        throw new SlackApiError("response_url", timedOut ? "timeout" : "network", { cause: error });
      }
      if (response.status === 200) return;
      throw responseError(response);
    },
  };
}

interface Answer {
  status: number;
  retryAfter: string | string[] | undefined;
  body: string;
}

/** Slack answers a bad response_url call with a short text code (`expired_url`, `used_url`, …). */
function responseError(response: Answer): SlackApiError {
  const body = response.body;
  const code = /^[a-z_]{3,40}$/.test(body.trim()) ? body.trim() : `http_${response.status}`;
  if (response.status === 429) {
    const header = Array.isArray(response.retryAfter) ? response.retryAfter[0] : response.retryAfter;
    const seconds = Number(header ?? "1");
    return new SlackApiError("response_url", "ratelimited", {
      retryAfterMs: (Number.isFinite(seconds) && seconds > 0 ? seconds : 1) * 1000,
    });
  }
  return new SlackApiError("response_url", code, { retryable: response.status >= 500 });
}
