export { createSlackAdapter, type SlackAdapter } from "./slack-adapter.js";
