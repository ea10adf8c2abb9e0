import { createServer } from "node:http";
import { App, HTTPReceiver, LogLevel } from "@slack/bolt";
import { FAKE_SLACK_BOT_TOKEN } from "../../fakes/slack-api.js";
import { onCleanup } from "../support/cleanup.js";
import { closeServer, listen } from "../support/net.js";
import { BENCH_SIGNING_SECRET } from "../support/requests.js";

/**
 * Baseline of figure 1: a bare Bolt app on the same HTTPReceiver the bot uses (its
 * `requestListener` on a plain node:http server, Bolt's own signature check on), with one
 * command listener that only acks. No store, no core, no answer.
 */
export async function startBareBolt(slackApiUrl: string): Promise<{ origin: string; stop(): Promise<void> }> {
  const receiver = new HTTPReceiver({ signingSecret: BENCH_SIGNING_SECRET, logLevel: LogLevel.ERROR });
  const app = new App({
    token: FAKE_SLACK_BOT_TOKEN,
    receiver,
    tokenVerificationEnabled: false,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl },
  });
  app.command(/.*/, async ({ ack }) => {
    await ack();
  });
  const server = createServer(receiver.requestListener);
  const origin = await listen(server);
  const handle = onCleanup("bare Bolt app", () => closeServer(server));
  return { origin, stop: handle.stop };
}
