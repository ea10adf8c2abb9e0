import { createServer } from "node:http";
import { App, HTTPReceiver, LogLevel } from "@slack/bolt";
import { FAKE_SLACK_BOT_TOKEN } from "../../fakes/slack-api.js";
import { onCleanup } from "../support/cleanup.js";
import { closeServer, listen } from "../support/net.js";
import { BENCH_SIGNING_SECRET } from "../support/requests.js";

/**
 * Baseline of the quote figure: a bare Bolt app on the same HTTPReceiver whose command acks, then
 * answers on the response_url with a canned quote (the address echoed, Confirm / Cancel buttons):
 * Bolt and Slack's answer path with no business behind it (no store, no service call).
 */
export async function startBareQuote(
  slackApiUrl: string,
): Promise<{ origin: string; stop(): Promise<void> }> {
  const receiver = new HTTPReceiver({ signingSecret: BENCH_SIGNING_SECRET, logLevel: LogLevel.ERROR });
  const app = new App({
    token: FAKE_SLACK_BOT_TOKEN,
    receiver,
    tokenVerificationEnabled: false,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl },
  });
  app.command(/.*/, async ({ ack, command, respond }) => {
    await ack();
    const address = command.text.split(" ")[1] ?? "";
    await respond({
      response_type: "in_channel",
      text: `Energy quote for ${address}`,
      blocks: [
        { type: "section", text: { type: "mrkdwn", text: `Energy quote: \`${address}\`` } },
        {
          type: "actions",
          elements: [
            {
              type: "button",
              text: { type: "plain_text", text: "Confirm 3.12 TRX" },
              action_id: "c",
              value: "c",
            },
            { type: "button", text: { type: "plain_text", text: "Cancel" }, action_id: "x", value: "x" },
          ],
        },
      ],
    });
  });
  const server = createServer(receiver.requestListener);
  const origin = await listen(server);
  const handle = onCleanup("bare Bolt quote app", () => closeServer(server));
  return { origin, stop: handle.stop };
}
