import { userInfo } from "node:os";
import type { Actor, ConversationRef } from "../../src/core/index.js";
import type { PlatformRegistration } from "../../src/platform.js";
import { createConsoleAdapter } from "./console-adapter.js";
import { CONSOLE_PLATFORM } from "./platform.js";

/** The one conversation of the terminal. */
const CONSOLE_CONVERSATION: ConversationRef = { platform: CONSOLE_PLATFORM.platform, id: "console" };

/** Whoever holds the local terminal holds the process. */
function consoleActor(): Actor {
  return { platform: CONSOLE_PLATFORM.platform, userId: safeUserName() };
}

/**
 * The console: the demo, when no chat platform is configured. Its user is an admin, and its one
 * conversation is where alerts go.
 */
export const CONSOLE_REGISTRATION: PlatformRegistration = {
  facts: CONSOLE_PLATFORM,
  variables: [],
  fallback: true,
  on: () => true,
  alerts: { conversation: () => CONSOLE_CONVERSATION },
  admins: () => [`${CONSOLE_PLATFORM.platform}:${consoleActor().userId}`],
  create: ({ core, stdin, stdout }) =>
    createConsoleAdapter({
      input: stdin ?? process.stdin,
      output: stdout ?? process.stdout,
      core,
      actor: consoleActor(),
      conversation: CONSOLE_CONVERSATION,
    }),
};

function safeUserName(): string {
  try {
    return userInfo().username || "operator";
  } catch {
    return "operator";
  }
}
