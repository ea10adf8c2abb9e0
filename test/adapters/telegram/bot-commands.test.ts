import { describe, expect, it } from "vitest";
import { knownVerbs, publishedCommands, readCommand } from "../../../adapters/telegram/bot/commands.js";
import { secretMatches } from "../../../adapters/telegram/webhook.js";
import { commands } from "../../../src/core/command-registry.js";

const verbs = knownVerbs(commands);
const message = (text: string) => {
  const command = /^\/\S+/.exec(text)?.[0];
  return {
    text,
    ...(command && { entities: [{ type: "bot_command" as const, offset: 0, length: command.length }] }),
  };
};
const read = (text: string, privateChat = false) => readCommand(message(text), "OpsBot", privateChat, verbs);

describe("readCommand", () => {
  it("strips the slash and this bot's mention, whatever its case", () => {
    expect(read("/energy@opsbot TAbc 65k")).toEqual({ kind: "command", text: "energy TAbc 65k" });
    expect(read("/Balance")).toEqual({ kind: "command", text: "balance" });
    expect(read("/start", true)).toEqual({ kind: "command", text: "start" });
  });

  it("ignores another bot's command, and an unknown command without mention in a group", () => {
    expect(read("/balance@otherbot")).toEqual({ kind: "ignore" });
    expect(read("/balance@otherbot", true)).toEqual({ kind: "ignore" });
    expect(read("/roll")).toEqual({ kind: "ignore" });
    expect(read("/roll", true)).toEqual({ kind: "command", text: "roll" });
    expect(read("/roll@opsbot")).toEqual({ kind: "command", text: "roll" });
  });

  it("text that does not start with a command entity is text", () => {
    expect(read("hello /help")).toEqual({ kind: "text" });
    expect(readCommand({ text: "/help" }, "OpsBot", true, verbs)).toEqual({ kind: "text" });
  });
});

describe("publishedCommands", () => {
  it("lists every verb of the registry with its summary, then aliases, within Telegram's rules", () => {
    const list = publishedCommands(commands);
    expect(list.slice(0, commands.length).map((c) => c.command)).toEqual(commands.map((c) => c.verb));
    expect(list.find((c) => c.command === "start")?.description).toMatch(/\(same as \/help\)$/);
    expect(list.find((c) => c.command === "digest")?.description).toMatch(/spends by person and kind/);
    for (const c of list) {
      expect(c.command).toMatch(/^[a-z0-9_]{1,32}$/);
      expect(c.description.length).toBeGreaterThan(0);
      expect(c.description.length).toBeLessThanOrEqual(256);
    }
  });
});

describe("secretMatches", () => {
  it("accepts only the exact secret", () => {
    expect(secretMatches("s3cret", "s3cret")).toBe(true);
    expect(secretMatches("s3cre", "s3cret")).toBe(false);
    expect(secretMatches("s3cret ", "s3cret")).toBe(false);
    expect(secretMatches("", "s3cret")).toBe(false);
    expect(secretMatches(undefined, "s3cret")).toBe(false);
    expect(secretMatches(["s3cret"], "s3cret")).toBe(false);
  });
});
