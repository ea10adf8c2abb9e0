/**
 * The Teams adapter over real parts, driven over HTTP as Teams drives it:
 *
 * - the fake Microsoft side (`test/fakes/teams-microsoft.ts`, https under the test CA): channel
 *   OpenID metadata and keys, the bot's token endpoint, a Bot Connector that records activities;
 * - the bot kit (`test/support/bot-kit.ts`): the sandbox service, the real core, store and job
 *   system with the notify worker delivering through the adapter under test;
 * - the bot's HTTP server with the adapter's routes (`POST /api/messages`, `GET /files/:token`).
 *
 * Activities are POSTed with a token the test signs; the test reads what the fake connector got.
 */
import { afterEach } from "vitest";
import { createTeamsAdapter, type TeamsAdapter } from "../../../adapters/teams/index.js";
import type { CoreDeps } from "../../../src/core/deps.js";
import { createHttpServer } from "../../../src/http/server.js";
import type { Sandbox } from "../../../src/sandbox/server.js";
import type { Store } from "../../../src/store/store.js";
import { APP_ID, type FakeMicrosoft, startFakeMicrosoft, TENANT } from "../../fakes/teams-microsoft.js";
import { type ChatKitOptions, startChatKit } from "../../support/bot-kit.js";
import { CHANNEL, messageActivity, nextSequence, OPERATOR, type TeamsUser } from "./activities.js";

export { APP_ID, CHANNEL, messageActivity };
export const VIEWER = { id: "29:vic", aadObjectId: "0c0c0c0c-0000-4000-8000-00000000a002", name: "Vic" };

export interface TeamsHarnessOptions extends ChatKitOptions {
  /** Another instance's fake (two bots, one Microsoft). */
  fake?: FakeMicrosoft;
  store?: Store;
}

export interface TeamsHarness {
  fake: FakeMicrosoft;
  sandbox: Sandbox;
  deps: CoreDeps;
  adapter: TeamsAdapter;
  url: string;
  post(activity: Record<string, unknown>, token?: string | null): Promise<Response>;
  /** A channel message mentioning the bot, from `from`. */
  say(
    text: string,
    options?: { from?: TeamsUser; token?: string | null; serviceUrl?: string; tenant?: string },
  ): Promise<Response>;
  /** Presses the `Action.Execute` labelled `label` of a card the connector got. */
  press(
    card: Record<string, unknown>,
    label: string | RegExp,
    from?: TeamsUser,
    where?: { conversationId: string; messageId: string },
  ): Promise<Response>;
  settle(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const open: TeamsHarness[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.close()));
});

/** The `Action.Execute` buttons of a card, anywhere in it. */
export function cardActions(card: unknown): { title: string; verb: string; data: Record<string, unknown> }[] {
  const out: { title: string; verb: string; data: Record<string, unknown> }[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === "object") {
      const n = node as Record<string, unknown>;
      if (n.type === "Action.Execute") out.push(n as never);
      Object.values(n).forEach(walk);
    }
  };
  walk(card);
  return out;
}

/** The Adaptive Card of a connector activity, if it carries one. */
export function cardOf(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const attachments = (body.attachments ?? []) as { contentType: string; content: Record<string, unknown> }[];
  return attachments.find((a) => a.contentType === "application/vnd.microsoft.card.adaptive")?.content;
}

export async function startTeamsHarness(options: TeamsHarnessOptions = {}): Promise<TeamsHarness> {
  const fake = options.fake ?? (await startFakeMicrosoft());
  const kit = await startChatKit(options, {
    hostCallbackToken: "teams-test-callback-token",
    admins: [],
    operators: [`teams:${OPERATOR.aadObjectId}`],
  });
  const { deps, core, store } = kit;
  const adapter = createTeamsAdapter({
    config: {
      appId: APP_ID,
      appPassword: "fake-app-password-0123456789",
      tenantId: TENANT,
      openIdUrl: fake.openIdUrl,
      loginUrl: fake.loginUrl,
      serviceOrigins: [fake.url],
      publicUrl: "https://opsbot.test",
    },
    core,
    store,
    logger: kit.logger,
  });
  await kit.startWorkers(new Map([["teams", adapter]]));
  const http = createHttpServer({ routes: [...adapter.routes] });
  const port = await http.listen(0, "127.0.0.1");
  await adapter.start();
  const url = `http://127.0.0.1:${port}`;

  const post = async (activity: Record<string, unknown>, token?: string | null) => {
    const bearer = token === undefined ? await fake.sign({ serviceUrl: String(activity.serviceUrl) }) : token;
    return fetch(`${url}/api/messages`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(bearer !== null && { authorization: `Bearer ${bearer}` }),
      },
      body: JSON.stringify(activity),
    });
  };
  let closed = false;
  const harness: TeamsHarness = {
    fake,
    sandbox: kit.sandbox,
    deps,
    adapter,
    url,
    post,
    say: (text, o = {}) => post(messageActivity(fake, text, o), o.token),
    press: (card, label, from = OPERATOR, where) => {
      const action = cardActions(card).find((a) =>
        typeof label === "string" ? a.title === label : label.test(a.title),
      );
      if (!action)
        throw new Error(
          `no button ${String(label)} in ${JSON.stringify(cardActions(card).map((a) => a.title))}`,
        );
      const sequence = nextSequence();
      const base = messageActivity(fake, "", { from });
      return post({
        ...base,
        ...(where && { conversation: { ...base.conversation, id: where.conversationId } }),
        type: "invoke",
        name: "adaptiveCard/action",
        id: `invoke-${sequence}`,
        replyToId: where?.messageId ?? "msg-card",
        text: undefined,
        entities: undefined,
        value: { action: { type: "Action.Execute", verb: action.verb, data: action.data } },
      });
    },
    settle: (timeoutMs?: number) => kit.settle(timeoutMs, { idle: (ms) => adapter.idle(ms) }),
    async close() {
      if (closed) return;
      closed = true;
      await adapter.close();
      await http.close();
      await kit.close();
      if (!options.fake) await fake.close();
    },
  };
  open.push(harness);
  return harness;
}
