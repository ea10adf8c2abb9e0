export { SLACK_EVENTS_PATH } from "./receiver.js";
export { renderReply } from "./render/blocks.js";
export { createSlackAdapter, type SlackAdapter, type SlackAdapterOptions } from "./slack-adapter.js";
export { signSlackRequest, verifySlackSignature } from "./verify.js";
