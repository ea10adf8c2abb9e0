import { expect, it } from "vitest";
import { CHANNEL, messageText, startSlackHarness } from "./harness.js";

it("smoke: /help", async () => {
  const h = await startSlackHarness();
  const { response } = await h.command("/help");
  expect(response.status).toBe(200);
  await h.settle();
  console.log(JSON.stringify(h.fake.calls().map((c) => [c.method, c.status, c.params]), null, 1).slice(0, 3000));
  console.log(messageText(h.fake.channelMessages(CHANNEL)[0]));
  console.log(h.logger.records.filter((r) => r.level !== "debug"));
});
