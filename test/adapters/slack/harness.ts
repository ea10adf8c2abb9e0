/**
 * The Slack adapter over real parts, driven over HTTP as Slack drives it:
 *
 * - the fake Slack Web API (`test/fakes/slack-api.ts`) as SLACK_API_URL, which also mints the
 *   `response_url`s of commands and clicks;
 * - the bot kit (`test/support/bot-kit.ts`): the sandbox service on a free port with short
 *   durations, the real service client, the real core, store (memory, or the one given) and job
 *   system (in-process queue, delays scaled by `timeScale`) with the notify worker delivering
 *   through the adapter under test;
 * - the bot's HTTP server with the adapter's `POST /slack/events` route.
 *
 * Requests are signed with the signing secret (`v0`), as Slack signs them; the test reads what the
 * fake Slack API recorded and what the sandbox was asked.
 */
import { afterEach } from "vitest";
import { createSlackAdapter, type SlackAdapter } from "../../../adapters/slack/index.js";
import { commands } from "../../../src/core/command-registry.js";
import type { Core } from "../../../src/core/core.js";
import type { CoreDeps } from "../../../src/core/deps.js";
import { homeSummary } from "../../../src/core/home.js";
import type { createMemoryLogger } from "../../../src/core/logger.js";
import { createUserGroupDirectory } from "../../../src/core/user-groups.js";
import { createHttpServer } from "../../../src/http/server.js";
import type { Sandbox } from "../../../src/sandbox/server.js";
import type { Store } from "../../../src/store/store.js";
import {
  createFakeSlackApi,
  FAKE_SLACK_APP_TOKEN,
  FAKE_SLACK_BOT_TOKEN,
  type FakeSlackApi,
  type FakeSlackMessage,
} from "../../fakes/slack-api.js";
import { type ChatKitOptions, startChatKit } from "../../support/bot-kit.js";
import {
  buttonClick,
  homeOpenedBody,
  SIGNING_SECRET,
  type Signed,
  type SlackUser,
  signedHeaders,
  slashCommand,
} from "./payloads.js";

export { waitFor } from "../../support/bot-kit.js";
export { CHANNEL, findButton, type Signed } from "./payloads.js";

export const OPERATOR = { id: "U0OPER", name: "olga" };
export const VIEWER = { id: "U0VIEW", name: "vic" };
export const ADMIN = { id: "U0ADMIN", name: "ada" };

export interface SlackHarnessOptions extends Omit<ChatKitOptions, "registry"> {
  /** Another instance's fake Slack (two bots, one Slack). */
  fake?: FakeSlackApi;
  /** SLACK_TEAM_ID of the bot. */
  teamId?: string;
  workingNoticeMs?: number;
  /** Socket Mode (SLACK_APP_TOKEN) instead of HTTP: no route, envelopes through `fake.socket`. */
  socketMode?: boolean;
  startRetryMs?: number;
  /** OPS_OPERATORS (default: the OPERATOR user); a `slack:S…` entry is a user group. */
  operators?: string[];
  /** Roles from user groups (read from the fake's `usergroups.users.list`). */
  userGroups?: boolean;
}

interface RequestOptions {
  user?: SlackUser;
  channel?: string;
  team?: string;
  /** Seconds; default now. */
  timestamp?: number;
  signature?: string;
  headers?: Record<string, string>;
  /** A click's `action_ts` (default now): two clicks in one millisecond need their own. */
  actionTs?: string;
}

export interface SlackHarness {
  fake: FakeSlackApi;
  sandbox: Sandbox;
  store: Store;
  core: Core;
  deps: CoreDeps;
  adapter: SlackAdapter;
  logger: ReturnType<typeof createMemoryLogger>;
  url: string;
  /** POSTs a body to /slack/events, signed unless `signature` is given. */
  post(body: Signed, options?: RequestOptions): Promise<Response>;
  /** A slash command line (`/energy T… 65k`) as Slack would POST it. */
  command(line: string, options?: RequestOptions): Promise<{ response: Response; request: Signed }>;
  /** A click on the button labelled `label` of `message`. */
  click(message: FakeSlackMessage, label: string | RegExp, options?: RequestOptions): Promise<Response>;
  /** The user opens the bot's Home tab. */
  openHome(user: SlackUser, options?: RequestOptions): Promise<Response>;
  /** Waits until no command or click is being handled and no job is due (delayed tracked jobs aside). */
  settle(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const open: SlackHarness[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.close()));
});

export async function startSlackHarness(options: SlackHarnessOptions = {}): Promise<SlackHarness> {
  const fake = options.fake ?? (await createFakeSlackApi());
  const roles = {
    admins: [`slack:${ADMIN.id}`],
    operators: options.operators ?? [`slack:${OPERATOR.id}`],
  };
  const userGroups = options.userGroups ? createUserGroupDirectory() : undefined;
  const kit = await startChatKit(options, {
    hostCallbackToken: "slack-test-callback-token",
    ...roles,
    ...(userGroups && { userGroups }),
  });
  const { deps, core, store, logger } = kit;
  const adapter = createSlackAdapter({
    config: {
      botToken: FAKE_SLACK_BOT_TOKEN,
      signingSecret: SIGNING_SECRET,
      apiUrl: fake.apiUrl,
      ...(options.teamId !== undefined && { teamId: options.teamId }),
      ...(options.socketMode && { appToken: FAKE_SLACK_APP_TOKEN }),
    },
    core,
    store,
    logger,
    homeReply: (actor) => homeSummary(deps, { actor, commands }),
    fallback: (conversation, reply) => deps.notifier.post(conversation, reply),
    workingNoticeMs: options.workingNoticeMs ?? 0,
    ...(options.startRetryMs !== undefined && { startRetryMs: options.startRetryMs }),
    ...(userGroups && {
      userGroups: {
        directory: userGroups,
        lists: { OPS_ADMINS: roles.admins, OPS_OPERATORS: roles.operators },
      },
    }),
  });
  await kit.startWorkers(new Map([["slack", adapter]]));
  const http = createHttpServer({ routes: adapter.route ? [adapter.route] : [] });
  const port = await http.listen(0, "127.0.0.1");
  await adapter.start();
  const url = `http://127.0.0.1:${port}`;

  async function post(body: Signed, o: RequestOptions = {}): Promise<Response> {
    const headers = signedHeaders(body.raw, o.timestamp);
    if (o.signature !== undefined) headers["x-slack-signature"] = o.signature;
    return fetch(`${url}/slack/events`, {
      method: "POST",
      headers: { "content-type": body.contentType, ...headers, ...o.headers },
      body: body.raw,
    });
  }

  async function command(line: string, o: RequestOptions = {}) {
    const request = slashCommand(fake, line, { user: o.user ?? OPERATOR, channel: o.channel, team: o.team });
    return { response: await post(request, o), request };
  }

  const click = (message: FakeSlackMessage, label: string | RegExp, o: RequestOptions = {}) =>
    post(
      buttonClick(fake, message, label, { user: o.user ?? OPERATOR, team: o.team, actionTs: o.actionTs }),
      o,
    );

  const openHome = (user: SlackUser, o: RequestOptions = {}) => post(homeOpenedBody(user, o.team), o);

  const settle = (timeoutMs?: number) => kit.settle(timeoutMs, { idle: (ms) => adapter.idle(ms) });

  const harness: SlackHarness = {
    fake,
    sandbox: kit.sandbox,
    store,
    core,
    deps,
    adapter,
    logger,
    url,
    post,
    command,
    click,
    openHome,
    settle,
    async close() {
      await adapter.close(2_000);
      await http.close();
      await kit.close();
      if (!options.fake) await fake.close();
    },
  };
  open.push(harness);
  return harness;
}

/** Every text a person would read in a message: its blocks' texts, or its `text`. */
export function messageText(message: FakeSlackMessage | undefined): string {
  if (!message) return "";
  if (!message.blocks) return message.text;
  const texts: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === "object" && value !== null) {
      const v = value as Record<string, unknown>;
      if ((v.type === "mrkdwn" || v.type === "plain_text") && typeof v.text === "string") texts.push(v.text);
      else Object.values(v).forEach(visit);
    }
  };
  visit(message.blocks);
  return texts.join("\n");
}

export const buttonLabels = (message: FakeSlackMessage | undefined): string[] =>
  (message?.blocks ?? [])
    .filter((b) => b.type === "actions")
    .flatMap((b) => (b.elements as { text: { text: string } }[]).map((e) => e.text.text));
