import type { webApi } from "@slack/bolt";
import { fromWebApiError } from "./errors.js";
import type { SlackBlock } from "./render/blocks.js";

/**
 * The Slack Web API methods the adapter uses, over Bolt's WebClient. The client is built with
 * no retries of its own and with rate-limited calls rejected at once (see `webClientOptions`):
 * @slack/web-api would otherwise retry for about 30 minutes, holding a job-queue slot, while the
 * notify queue already retries with backoff and honours `retryAfterMs`.
 */
export interface MessageBody {
  text: string;
  blocks?: readonly SlackBlock[];
}

interface UploadTarget {
  uploadUrl: string;
  fileId: string;
}

/** `files.info`: what the bot needs of a shared file to read it. */
interface SlackFileInfo {
  name: string;
  mimetype?: string;
  size: number;
  urlPrivate?: string;
}

export interface SlackWeb {
  postMessage(channel: string, message: MessageBody, threadTs?: string): Promise<string>;
  postEphemeral(channel: string, user: string, message: MessageBody, threadTs?: string): Promise<void>;
  update(channel: string, ts: string, message: MessageBody): Promise<void>;
  publishHome(user: string, blocks: readonly SlackBlock[]): Promise<void>;
  /** Opens a modal; the trigger_id of a command or click is valid for 3 seconds, once. */
  openView(triggerId: string, view: Record<string, unknown>): Promise<void>;
  /** `altText`: what an image shows, for screen readers (Slack's `alt_txt`). */
  getUploadUrl(filename: string, length: number, altText?: string): Promise<UploadTarget>;
  completeUpload(
    files: readonly { id: string; title: string }[],
    channel: string,
    options: { threadTs?: string; initialComment?: string },
  ): Promise<void>;
  authTest(): Promise<{ userId?: string; teamId?: string }>;
  /** `files.info` (scope `files:read`): a file shared in a conversation the bot is in. */
  fileInfo(fileId: string): Promise<SlackFileInfo>;
}

/** A per-call bound for the Web API: long enough for an upload completion, short for a job slot. */
const WEB_API_TIMEOUT_MS = 15_000;

export function webClientOptions(slackApiUrl: string | undefined, logger: webApi.WebClientOptions["logger"]) {
  return {
    ...(slackApiUrl !== undefined && { slackApiUrl }),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: WEB_API_TIMEOUT_MS,
    // The original axios error carries the request, Authorization header included.
    attachOriginalToWebAPIRequestError: false,
    logger,
  } satisfies webApi.WebClientOptions;
}

export function createSlackWeb(client: webApi.WebClient): SlackWeb {
  async function call(method: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    try {
      return (await client.apiCall(method, args)) as unknown as Record<string, unknown>;
    } catch (error) {
      throw fromWebApiError(method, error);
    }
  }
  const thread = (threadTs?: string) => (threadTs === undefined ? {} : { thread_ts: threadTs });

  return {
    async postMessage(channel, message, threadTs) {
      const result = await call("chat.postMessage", { channel, ...message, ...thread(threadTs) });
      return String(result.ts ?? "");
    },
    async postEphemeral(channel, user, message, threadTs) {
      await call("chat.postEphemeral", { channel, user, ...message, ...thread(threadTs) });
    },
    async update(channel, ts, message) {
      await call("chat.update", { channel, ts, ...message });
    },
    async publishHome(user, blocks) {
      await call("views.publish", { user_id: user, view: { type: "home", blocks } });
    },
    async openView(triggerId, view) {
      await call("views.open", { trigger_id: triggerId, view });
    },
    async getUploadUrl(filename, length, altText) {
      const result = await call("files.getUploadURLExternal", {
        filename,
        length,
        ...(altText !== undefined && { alt_txt: altText }),
      });
      return { uploadUrl: String(result.upload_url ?? ""), fileId: String(result.file_id ?? "") };
    },
    async completeUpload(files, channel, options) {
      await call("files.completeUploadExternal", {
        files,
        channel_id: channel,
        ...thread(options.threadTs),
        ...(options.initialComment !== undefined && { initial_comment: options.initialComment }),
      });
    },
    async fileInfo(fileId) {
      const result = await call("files.info", { file: fileId });
      const file = (result.file ?? {}) as Record<string, unknown>;
      return {
        name: typeof file.name === "string" ? file.name : "file",
        ...(typeof file.mimetype === "string" && { mimetype: file.mimetype }),
        size: typeof file.size === "number" ? file.size : 0,
        ...(typeof file.url_private === "string" && { urlPrivate: file.url_private }),
      };
    },
    async authTest() {
      const result = await call("auth.test", {});
      return {
        ...(typeof result.user_id === "string" && { userId: result.user_id }),
        ...(typeof result.team_id === "string" && { teamId: result.team_id }),
      };
    },
  };
}
