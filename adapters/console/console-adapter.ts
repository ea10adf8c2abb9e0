import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import type {
  Actor,
  AdapterCore,
  Button,
  ChatAdapter,
  ChatAdapterLifecycle,
  ConversationRef,
  Reply,
} from "../../src/core/index.js";
import { clean, renderReply } from "./render.js";
import { createFileSaver } from "./save-files.js";
import { fileOfLine } from "./shared-file.js";

/**
 * The console adapter: one line in, one reply out. Works on a terminal and on a pipe (no TTY
 * needed); the prompt and the styling appear only on a TTY. Typing a number presses that button
 * of the last message that had buttons.
 */
export interface ConsoleAdapterOptions {
  input: Readable;
  output: Writable;
  /** Anything with the core's `handle` (the core itself in `main.ts`). */
  core: Pick<AdapterCore, "handle" | "delivered" | "commands">;
  actor: Actor;
  conversation: ConversationRef;
  /** Default: `output.isTTY`. */
  isTTY?: boolean;
  /** Where file blocks are written; default: a fresh temp directory. */
  fileDir?: string;
}

export interface ConsoleAdapter extends ChatAdapter, ChatAdapterLifecycle {
  readonly platform: "console";
  /** Resolves when the input has ended and every line read has been answered. */
  readonly finished: Promise<void>;
  /** Nothing to connect: the input is read from creation, so no line typed early is lost. */
  start(): Promise<void>;
  /** Always true: the terminal never makes the bot unready, even after the input ended. */
  ready(): boolean;
  /** Stops reading and waits for the line in progress (the shutdown budget bounds it). */
  close(timeoutMs?: number): Promise<void>;
}

export const PROMPT = "opsbot> ";
const CANCEL_HINT = "cancel closes nothing; a line that starts with a command runs that command";
const NOTIFICATION_MARK = "» ";

export function createConsoleAdapter(options: ConsoleAdapterOptions): ConsoleAdapter {
  const { output, actor, conversation } = options;
  const tty = options.isTTY ?? (output as { isTTY?: boolean }).isTTY === true;
  const saver = createFileSaver(options.fileDir);
  const lines = createInterface({
    input: options.input,
    terminal: false,
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let choices: Button[] = [];
  /** A button asked for more (a reason): the next line typed completes this command line. */
  let asked: string | undefined;
  let queue: Promise<void> = Promise.resolve();
  let messages = 0;
  let closed = false;
  /** The reader went away (`… | head`, a closed terminal): stop reading, write nothing more. */
  let gone = false;
  const write = (text: string) => {
    if (!gone) output.write(text);
  };
  output.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
    gone = true;
    lines.close();
  });

  const prompt = () => {
    if (tty && !closed) write(PROMPT);
  };

  async function print(reply: Reply, mark: string): Promise<string> {
    const rendered = renderReply(reply, { tty, savedPaths: await saver.save(reply) });
    if (rendered.buttons.length > 0) choices = rendered.buttons;
    messages += 1;
    const body = mark ? rendered.text.replace(/^/gm, mark) : rendered.text;
    write(`${body}\n\n`);
    return `console-${messages}`;
  }

  async function answer(line: string): Promise<void> {
    const typed = line.trim();
    if (asked !== undefined) return answerAsked(asked, typed);
    if (typed.length === 0) return;
    if (/^\d+$/.test(typed)) return press(Number(typed));
    return run(typed);
  }

  /**
   * The line after a button's prompt: the reason, as typed. A blank one asks again; `cancel`
   * closes nothing; a line that starts with a command's name is that command (the prompt says so).
   */
  async function answerAsked(lead: string, typed: string): Promise<void> {
    if (typed.length === 0) {
      write(`A reason is needed; type it on the next line (${CANCEL_HINT}).\n\n`);
      return;
    }
    asked = undefined;
    if (typed.toLowerCase() === "cancel") {
      write("Cancelled: nothing was closed.\n\n");
      return;
    }
    if (isCommand(typed)) {
      write("Not taken as the reason (it is a command): nothing was closed.\n");
      return run(typed);
    }
    return run(`${lead} ${typed}`);
  }

  const isCommand = (typed: string): boolean => {
    const first = typed.split(/\s/, 1)[0]?.replace(/^\//, "").toLowerCase() ?? "";
    return (options.core.commands ?? []).some((c) => c.verb === first || c.aliases?.includes(first));
  };

  async function run(text: string): Promise<void> {
    const file = await fileOfLine(text);
    const invocation = { kind: "command", actor, conversation, text, ...(file && { file }) } as const;
    await print(await options.core.handle(invocation), "");
  }

  async function press(choice: number): Promise<void> {
    const button = choices[choice - 1];
    if (!button) {
      write(`${noSuchChoiceLine(choice, choices)}\n\n`);
      return;
    }
    const invocation = { kind: "action", actor, conversation, token: button.token } as const;
    const reply = await options.core.handle(invocation, {
      confirmsDelivery: options.core.delivered !== undefined,
    });
    if (reply.asks) {
      // The console's form: a prompt, answered by the next line.
      asked = reply.asks.line;
      write(`${clean(reply.asks.prompt)}\n(Type it on the next line; ${CANCEL_HINT}.)\n\n`);
      return;
    }
    await print(reply, "");
    await options.core.delivered?.(reply);
  }

  lines.on("line", (line) => {
    queue = queue
      .then(() => answer(line))
      .catch((error: unknown) => {
        write(
          `Could not show the answer: ${clean(error instanceof Error ? error.message : String(error))}\n\n`,
        );
      })
      .then(prompt);
  });
  const finished = new Promise<void>((resolve) => {
    lines.once("close", () => {
      closed = true;
      resolve(queue);
    });
  });
  prompt();

  return {
    platform: "console",
    finished,
    start: async () => {},
    ready: () => true,
    async send(_target, reply) {
      if (tty) write("\n");
      const messageId = await print(reply, NOTIFICATION_MARK);
      prompt();
      return { messageId };
    },
    // A terminal cannot edit what it printed: the outcome is printed below.
    replace(target, _messageId, reply) {
      return this.send(target, reply);
    },
    async close() {
      closed = true;
      lines.close();
      await finished;
    },
  };
}

/** One line that says which choices exist (or that there are none). */
function noSuchChoiceLine(choice: number, choices: readonly Button[]): string {
  if (choices.length === 0) return `There is no choice ${choice}: no message with buttons yet.`;
  const list = choices.map((b, i) => `[${i + 1}] ${clean(b.label)}`).join(", ");
  return `There is no choice ${choice}; the choices are ${list}.`;
}
