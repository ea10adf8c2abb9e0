import { describe, expect, it } from "vitest";
import { createSlackUserGroups } from "../../../adapters/slack/user-groups.js";
import { createMemoryLogger } from "../../../src/core/logger.js";
import { createUserGroupDirectory } from "../../../src/core/user-groups.js";
import { createMemoryStore } from "../../../src/store/memory-store.js";
import { waitFor } from "./harness.js";

/**
 * Two instances, one store: the event reaches one of them; the other grants what it read within
 * its mirror period (10 s in production, 50 ms here), never from its own stale copy.
 */
describe("a Slack user group's members, shared by instances", () => {
  it("a change read by one instance reaches the other through the store", async () => {
    const store = createMemoryStore();
    let members = ["U0ONE"];
    const client = { usergroups: { users: { list: async () => ({ users: [...members] }) } } };
    const lists = { OPS_OPERATORS: ["slack:S0OPS"] };
    const [a, b] = [createUserGroupDirectory(), createUserGroupDirectory()];
    const logger = createMemoryLogger();
    const onA = createSlackUserGroups({ client, store, logger, directory: a, lists, mirrorMs: 50 });
    const onB = createSlackUserGroups({ client, store, logger, directory: b, lists, mirrorMs: 50 });
    await onA.start();
    await onB.start();
    try {
      expect(b.has("slack:S0OPS", "slack:U0ONE")).toBe(true);
      members = ["U0TWO"];
      await onA.read("S0OPS");
      expect(a.has("slack:S0OPS", "slack:U0ONE")).toBe(false);
      await waitFor(() => !b.has("slack:S0OPS", "slack:U0ONE"), "the other instance following");
      expect(b.has("slack:S0OPS", "slack:U0TWO")).toBe(true);
    } finally {
      onA.stop();
      onB.stop();
    }
  });

  it("is read again on every poll (10 minutes in production, 40 ms here) without an event", async () => {
    let reads = 0;
    const client = {
      usergroups: {
        users: {
          list: async () => {
            reads += 1;
            return { users: reads > 1 ? ["U0NEW"] : ["U0OLD"] };
          },
        },
      },
    };
    const directory = createUserGroupDirectory();
    const groups = createSlackUserGroups({
      client,
      store: createMemoryStore(),
      logger: createMemoryLogger(),
      directory,
      lists: { OPS_ADMINS: ["slack:S0ADM", "slack:U0DIRECT"] },
      pollMs: 40,
    });
    await groups.start();
    try {
      expect(directory.has("slack:S0ADM", "slack:U0OLD")).toBe(true);
      await waitFor(() => directory.has("slack:S0ADM", "slack:U0NEW"), "the poll's reading");
      expect(directory.has("slack:S0ADM", "slack:U0OLD")).toBe(false);
    } finally {
      groups.stop();
    }
  });
});
