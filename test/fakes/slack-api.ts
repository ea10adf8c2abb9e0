import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { blocksProblem, viewProblem } from "./slack-blocks.js";
import { type Answer, type Params, parseParams, readBody, send } from "./slack-http.js";
import { createSocketSide } from "./slack-socket.js";

/**
 * A fake Slack Web API over real HTTP (Bolt's `clientOptions.slackApiUrl` = `<url>/api/`): the
 * methods the bot uses, the upload URL of `files.getUploadURLExternal`, and `response_url`
 * endpoints the test mints per command or message. It records every call, keeps the messages,
 * ephemeral messages, Home views and files as Slack would show them, refuses what Slack refuses
 * (bad token, unknown message, invalid blocks, a used-up response_url), and can answer 429 with
 * `Retry-After` or 500 to simulate limits and outages. Socket Mode: `apps.connections.open` (with
 * the app token) hands out a WebSocket on the same port, which says `hello` and carries envelopes
 * the test sends (`socket.send`), resolving with the bot's ack.
 */
export const FAKE_SLACK_BOT_TOKEN = "xoxb-fake-0000-token";
export const FAKE_SLACK_TEAM = "T0FAKETEAM";
export const FAKE_SLACK_BOT_USER = "U0FAKEBOT";
export const FAKE_SLACK_APP_TOKEN = "xapp-1-A0FAKE-0000-apptoken";

interface SlackCall {
  /** Web API method, or `upload` (the upload URL) or `response_url`. */
  method: string;
  params: Record<string, unknown>;
  status: number;
  at: number;
}

export interface FakeSlackFile {
  id: string;
  filename: string;
  title?: string;
  /** `alt_txt` given to files.getUploadURLExternal (what an image shows, for screen readers). */
  altText?: string;
  bytes?: Buffer;
  shared: boolean;
}

export interface FakeSlackMessage {
  ts: string;
  channel: string;
  text: string;
  blocks?: Record<string, unknown>[];
  threadTs?: string;
  /** Set for an ephemeral message: only this user sees it. */
  ephemeralTo?: string;
  via: string;
  files?: FakeSlackFile[];
  edits: number;
}

/** A modal the bot opened: its `view` as sent (blocks, callback_id, private_metadata). */
export interface FakeSlackView {
  id: string;
  triggerId: string;
  view: Record<string, unknown>;
}

export type FakeSlackFailure =
  | { kind: "429"; retryAfter: number }
  | { kind: "500" }
  | { kind: "error"; error: string };

interface ResponseUrl {
  channel: string;
  user: string;
  messageTs?: string;
  uses: number;
}

const RESPONSE_URL_USES = 5;

export type FakeSlackApi = Awaited<ReturnType<typeof createFakeSlackApi>>;

export async function createFakeSlackApi(options: { token?: string; teamId?: string } = {}) {
  const token = options.token ?? FAKE_SLACK_BOT_TOKEN;
  const teamId = options.teamId ?? FAKE_SLACK_TEAM;
  const calls: SlackCall[] = [];
  const messages: FakeSlackMessage[] = [];
  const messageListeners = new Set<(message: FakeSlackMessage) => void>();
  const homes = new Map<string, Record<string, unknown>>();
  const files = new Map<string, FakeSlackFile>();
  const userFiles = new Map<string, { id: string; filename: string; bytes: Buffer; mimetype: string }>();
  const responseUrls = new Map<string, ResponseUrl>();
  const failures: { method: string; failure: FakeSlackFailure; remaining: number }[] = [];
  const refusedChannels = new Map<string, string>();
  /** User groups by id: their members, or the error `usergroups.users.list` answers. */
  const userGroups = new Map<string, string[] | { error: string }>();
  const deleted = new Set<string>();
  const usedTriggers = new Set<string>();
  const views: FakeSlackView[] = [];
  let clock = 1_700_000_000;
  let counter = 0;
  let origin = "";

  const nextTs = () => `${clock++}.${String(++counter).padStart(6, "0")}`;
  const ok = (body: Params = {}): Answer => ({ status: 200, body: { ok: true, ...body } });
  const bad = (error: string, extra: Params = {}): Answer => ({
    status: 200,
    body: { ok: false, error, ...extra },
  });

  function post(params: Params, fields: Partial<FakeSlackMessage> & { channel: string; via: string }) {
    const message: FakeSlackMessage = {
      ts: nextTs(),
      text: typeof params.text === "string" ? params.text : "",
      ...(Array.isArray(params.blocks) && { blocks: params.blocks as Record<string, unknown>[] }),
      ...(typeof params.thread_ts === "string" && { threadTs: params.thread_ts }),
      edits: 0,
      ...fields,
    };
    messages.push(message);
    for (const listener of messageListeners) listener(message);
    return message;
  }

  function messageProblem(params: Params, maxBlocks = 50): Answer | undefined {
    const hasBlocks = Array.isArray(params.blocks) && params.blocks.length > 0;
    if (!hasBlocks && (typeof params.text !== "string" || params.text.trim() === "")) return bad("no_text");
    const problem = blocksProblem(params.blocks, maxBlocks);
    return problem ? bad("invalid_blocks", { errors: [problem] }) : undefined;
  }

  function channelProblem(channel: unknown): Answer | undefined {
    if (typeof channel !== "string" || channel === "") return bad("channel_not_found");
    const refusal = refusedChannels.get(channel);
    return refusal ? bad(refusal) : undefined;
  }

  /** A reply to a message that was deleted: Slack has no thread to put it in. */
  function threadProblem(channel: unknown, threadTs: unknown): Answer | undefined {
    return typeof threadTs === "string" && deleted.has(`${String(channel)}:${threadTs}`)
      ? bad("thread_not_found")
      : undefined;
  }

  const methods: Record<string, (p: Params) => Answer> = {
    "auth.test": () =>
      ok({
        url: "https://fake.slack.test/",
        team: "Fake",
        user: "opsbot",
        team_id: teamId,
        user_id: FAKE_SLACK_BOT_USER,
        bot_id: "B0FAKEBOT",
      }),
    "usergroups.users.list": (p) => {
      const group = userGroups.get(String(p.usergroup));
      if (group === undefined) return bad("no_such_subteam");
      return Array.isArray(group) ? ok({ users: [...group] }) : bad(group.error);
    },
    "apps.connections.open": () => ok({ url: `${origin.replace(/^http/, "ws")}/socket` }),
    "chat.postMessage": (p) => {
      const refusal = channelProblem(p.channel) ?? messageProblem(p) ?? threadProblem(p.channel, p.thread_ts);
      if (refusal) return refusal;
      const m = post(p, { channel: String(p.channel), via: "chat.postMessage" });
      return ok({ channel: m.channel, ts: m.ts, message: { text: m.text, ts: m.ts } });
    },
    "chat.postEphemeral": (p) => {
      const refusal = channelProblem(p.channel) ?? messageProblem(p);
      if (refusal) return refusal;
      if (typeof p.user !== "string" || p.user === "") return bad("user_not_found");
      const m = post(p, { channel: String(p.channel), via: "chat.postEphemeral", ephemeralTo: p.user });
      return ok({ message_ts: m.ts });
    },
    "chat.update": (p) => {
      const refusal = channelProblem(p.channel) ?? messageProblem(p);
      if (refusal) return refusal;
      const m = messages.find((x) => x.channel === p.channel && x.ts === p.ts && !x.ephemeralTo);
      if (!m) return bad("message_not_found");
      replace(m, p);
      return ok({ channel: m.channel, ts: m.ts, text: m.text });
    },
    "views.open": (p) => {
      const view = p.view as Params | undefined;
      if (typeof p.trigger_id !== "string" || p.trigger_id === "") return bad("invalid_trigger_id");
      if (view?.type !== "modal") return bad("invalid_arguments");
      if (usedTriggers.has(p.trigger_id)) return bad("expired_trigger_id");
      const problem = viewProblem(view);
      if (problem) return bad("invalid_arguments", { response_metadata: { messages: [problem] } });
      usedTriggers.add(p.trigger_id);
      const id = `V${String(++counter).padStart(8, "0")}`;
      views.push({ id, triggerId: p.trigger_id, view });
      return ok({ view: { id, ...view } });
    },
    "views.publish": (p) => {
      const view = p.view as Params | undefined;
      if (typeof p.user_id !== "string" || !view || view.type !== "home") return bad("invalid_arguments");
      const problem = blocksProblem(view.blocks, 100);
      if (problem) return bad("invalid_blocks", { errors: [problem] });
      homes.set(p.user_id, view);
      return ok({ view: { id: `V${counter++}`, ...view } });
    },
    "files.getUploadURLExternal": (p) => {
      const length = Number(p.length);
      if (typeof p.filename !== "string" || p.filename === "" || !Number.isInteger(length) || length < 1) {
        return bad("invalid_arguments");
      }
      if (p.alt_txt !== undefined && (typeof p.alt_txt !== "string" || p.alt_txt.length > 1000)) {
        return bad("invalid_arguments");
      }
      const id = `F${randomBytes(5).toString("hex").toUpperCase()}`;
      const alt = typeof p.alt_txt === "string" ? { altText: p.alt_txt } : {};
      files.set(id, { id, filename: p.filename, shared: false, ...alt });
      return ok({ upload_url: `${origin}/upload/${id}?length=${length}`, file_id: id });
    },
    "files.info": (p) => {
      const file = userFiles.get(String(p.file));
      if (!file) return bad("file_not_found");
      return ok({
        file: {
          id: file.id,
          name: file.filename,
          mimetype: file.mimetype,
          size: file.bytes.length,
          url_private: `${origin}/private/${file.id}/${encodeURIComponent(file.filename)}`,
        },
      });
    },
    "files.completeUploadExternal": (p) => {
      const refusal = channelProblem(p.channel_id);
      if (refusal) return refusal;
      const list = Array.isArray(p.files) ? (p.files as { id?: string; title?: string }[]) : [];
      const found = list.map((f) => files.get(String(f.id)));
      if (list.length === 0 || found.some((f) => !f?.bytes)) return bad("file_not_found");
      for (const [i, f] of found.entries()) {
        if (f) Object.assign(f, { shared: true, ...(list[i]?.title && { title: list[i]?.title }) });
      }
      const shared = found.filter((f): f is FakeSlackFile => f !== undefined);
      post(
        { text: p.initial_comment ?? "", thread_ts: p.thread_ts },
        { channel: String(p.channel_id), via: "files.completeUploadExternal", files: shared },
      );
      return ok({ files: shared.map((f) => ({ id: f.id, title: f.title ?? f.filename })) });
    },
  };

  function replace(m: FakeSlackMessage, p: Params): void {
    m.text = typeof p.text === "string" ? p.text : "";
    if (Array.isArray(p.blocks)) m.blocks = p.blocks as Record<string, unknown>[];
    else delete m.blocks;
    m.edits += 1;
  }

  function respond(id: string, p: Params): Answer {
    const target = responseUrls.get(id);
    if (!target) return { status: 404, body: "invalid_response_url" };
    if (target.uses >= RESPONSE_URL_USES) return { status: 404, body: "used_url" };
    const problem = messageProblem(p);
    if (problem) return { status: 400, body: "invalid_blocks" };
    target.uses += 1;
    const original =
      target.messageTs && messages.find((m) => m.channel === target.channel && m.ts === target.messageTs);
    if (p.replace_original === true && original) {
      replace(original, p);
      // A replaced message keeps its place; later replies on the same URL still refer to it.
    } else if (p.response_type === "in_channel") {
      post(p, { channel: target.channel, via: "response_url" });
    } else {
      post(p, { channel: target.channel, via: "response_url", ephemeralTo: target.user });
    }
    return { status: 200, body: "ok" };
  }

  function upload(id: string, bytes: Buffer, url: URL): Answer {
    const file = files.get(id);
    if (!file || file.bytes) return { status: 404, body: "not found" };
    if (Number(url.searchParams.get("length")) !== bytes.length)
      return { status: 400, body: "length mismatch" };
    file.bytes = bytes;
    return { status: 200, body: `OK - ${bytes.length}` };
  }

  function injected(method: string): Answer | undefined {
    const entry = failures.find((f) => f.method === method && f.remaining > 0);
    if (!entry) return undefined;
    entry.remaining -= 1;
    const f = entry.failure;
    if (f.kind === "429") {
      return {
        status: 429,
        body: { ok: false, error: "ratelimited" },
        headers: { "retry-after": String(f.retryAfter) },
      };
    }
    if (f.kind === "500") return { status: 500, body: "internal server error" };
    return bad(f.error);
  }

  async function route(
    req: IncomingMessage,
    raw: Buffer,
    url: URL,
  ): Promise<{ method: string; params: Params; answer: Answer }> {
    const path = url.pathname;
    if (path.startsWith("/upload/")) {
      const method = "upload";
      return {
        method,
        params: { fileId: path.slice(8), bytes: raw.length },
        answer: injected(method) ?? upload(path.slice(8), raw, url),
      };
    }
    if (path.startsWith("/private/")) {
      const method = "url_private";
      const file = userFiles.get(path.split("/")[2] ?? "");
      const answer: Answer =
        req.headers.authorization !== `Bearer ${token}`
          ? { status: 302, body: "login page", headers: { location: `${origin}/login` } }
          : file
            ? { status: 200, body: file.bytes, headers: { "content-type": file.mimetype } }
            : { status: 404, body: "not found" };
      return { method, params: { path }, answer: injected(method) ?? answer };
    }
    const params = parseParams(raw, req.headers["content-type"]);
    if (path.startsWith("/response/")) {
      const method = "response_url";
      return { method, params, answer: injected(method) ?? respond(path.slice(10), params) };
    }
    const method = path.replace(/^\/api\//, "");
    const auth =
      req.headers.authorization ?? (typeof params.token === "string" ? `Bearer ${params.token}` : "");
    const handler = methods[method];
    // Socket Mode's one method takes the app-level token; every other method the bot token.
    const expected = method === "apps.connections.open" ? FAKE_SLACK_APP_TOKEN : token;
    const answer =
      injected(method) ??
      (auth !== `Bearer ${expected}`
        ? bad("invalid_auth")
        : handler
          ? handler(params)
          : bad("unknown_method"));
    return { method, params, answer };
  }

  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const url = new URL(req.url ?? "/", "http://fake");
      const { method, params, answer } = await route(req, raw, url);
      calls.push({ method, params, status: answer.status, at: Date.now() });
      send(res, answer);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const socket = createSocketSide(server);

  return {
    /** `SLACK_API_URL` for the bot. */
    apiUrl: `${origin}/api/`,
    origin,
    teamId,
    /** Every call, or those of one method. */
    calls: (method?: string) =>
      method === undefined ? [...calls] : calls.filter((c) => c.method === method),
    /** Messages everyone in `channel` sees (not ephemeral), oldest first. */
    channelMessages: (channel: string) => messages.filter((m) => m.channel === channel && !m.ephemeralTo),
    /** Ephemeral messages shown to `user`. */
    ephemerals: (user: string) => messages.filter((m) => m.ephemeralTo === user),
    allMessages: () => [...messages],
    /**
     * Calls `listener` with each message posted from now on (a load that waits for thousands of
     * answers reads each once instead of copying every message so far on each look); answers
     * the unsubscribe.
     */
    onMessage(listener: (message: FakeSlackMessage) => void): () => void {
      messageListeners.add(listener);
      return () => void messageListeners.delete(listener);
    },
    home: (user: string) => homes.get(user),
    files: () => [...files.values()],
    /** A file a user shared (readable with `files.info` and its `url_private`); returns its id. */
    userFile(filename: string, bytes: Buffer, mimetype = "text/csv"): string {
      const id = `F${randomBytes(5).toString("hex").toUpperCase()}`;
      userFiles.set(id, { id, filename, bytes, mimetype });
      return id;
    },
    /** A response_url for a command typed in `channel`, or for a click on message `messageTs`. */
    responseUrl(target: { channel: string; user: string; messageTs?: string }): string {
      const id = randomBytes(8).toString("hex");
      responseUrls.set(id, { ...target, uses: 0 });
      return `${origin}/response/${id}`;
    },
    /** The next `times` calls of `method` (a Web API method, `upload` or `response_url`) fail. */
    fail(method: string, failure: FakeSlackFailure, times = 1): void {
      failures.push({ method, failure, remaining: times });
    },
    /** Someone deletes a message: it leaves the channel, and replies into its thread are refused. */
    deleteMessage(channel: string, ts: string): void {
      deleted.add(`${channel}:${ts}`);
      const index = messages.findIndex((m) => m.channel === channel && m.ts === ts);
      if (index !== -1) messages.splice(index, 1);
    },
    /** Modals opened with `views.open`, oldest first. */
    views: () => [...views],
    /** A user group's members, as `usergroups.users.list` answers them. */
    setUserGroup(id: string, users: readonly string[]): void {
      userGroups.set(id, [...users]);
    },
    /** `usergroups.users.list` of this group answers `error` (e.g. `missing_scope`). */
    refuseUserGroup(id: string, error: string): void {
      userGroups.set(id, { error });
    },
    /** Posting into `channel` answers `error` (e.g. `not_in_channel`, `channel_not_found`). */
    refuseChannel(channel: string, error: string): void {
      refusedChannels.set(channel, error);
    },
    /** Socket Mode: envelopes to the connected bot, and what it sent back. */
    socket,
    async close(): Promise<void> {
      await socket.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
