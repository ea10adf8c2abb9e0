import type { ConversationRef } from "../../src/core/index.js";

/**
 * A link to a message of a channel, a reply in a thread opening its thread: Slack's archive form,
 * which opens in the workspace of whoever follows it (the bot does not learn the workspace's own
 * URL: Bolt's auth.test at start keeps only the ids). A message id that is no `ts` (an App Home
 * notice has none): no link.
 */
export function slackMessageLink(conversation: ConversationRef, messageId: string): string | undefined {
  if (!/^\d+\.\d+$/.test(messageId)) return undefined;
  const thread = conversation.threadId ? `?thread_ts=${conversation.threadId}&cid=${conversation.id}` : "";
  return `https://slack.com/archives/${conversation.id}/p${messageId.replace(".", "")}${thread}`;
}
