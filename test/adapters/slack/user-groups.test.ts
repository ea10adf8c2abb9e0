import { describe, expect, it } from "vitest";
import { createFakeSlackApi } from "../../fakes/slack-api.js";
import { freshAddress } from "../../support/spend-harness.js";
import {
  buttonLabels,
  CHANNEL,
  messageText,
  OPERATOR,
  type SlackHarness,
  startSlackHarness,
  waitFor,
} from "./harness.js";
import { subteamMembersChangedBody } from "./payloads.js";

/**
 * Roles from Slack user groups (issue 44; CONTRACT: `slack:S…` in OPS_ADMINS / OPS_OPERATORS):
 * members read with `usergroups.users.list` from the fake Slack Web API, kept current on
 * `subteam_members_changed`; a removed member's next Confirm is refused as a viewer's; a group that
 * cannot be read is one line at start and grants nothing. The real Bolt app over HTTP.
 */
const GROUP = "S0MONEY";

async function quoteEnergy(h: SlackHarness) {
  await h.command(`/energy ${freshAddress("group")} 65k`);
  await h.settle();
  return structuredClone(h.fake.channelMessages(CHANNEL).at(-1));
}

describe("roles from a Slack user group", () => {
  it("a member is an operator; removed (the event), their next Confirm is refused as a viewer's", async () => {
    const fake = await createFakeSlackApi();
    fake.setUserGroup(GROUP, [OPERATOR.id]);
    const h = await startSlackHarness({ fake, operators: [`slack:${GROUP}`], userGroups: true });
    try {
      expect(fake.calls("usergroups.users.list").map((c) => c.params.usergroup)).toEqual([GROUP]);
      const quote = await quoteEnergy(h);
      expect(buttonLabels(quote).some((l) => /^Confirm/.test(l))).toBe(true);

      fake.setUserGroup(GROUP, []);
      const answer = await h.post(subteamMembersChangedBody(GROUP, { removed: [OPERATOR.id] }));
      expect(answer.status).toBe(200);
      await waitFor(() => fake.calls("usergroups.users.list").length === 2, "the group read again");
      await h.settle();
      await h.click(quote!, /^Confirm/);
      await h.settle();
      expect(h.sandbox.calls("order5m.create")).toEqual([]);
      expect(h.fake.ephemerals(OPERATOR.id).map(messageText)).toEqual([
        expect.stringContaining("needs the operator role; you are a viewer"),
      ]);
    } finally {
      await h.close();
      await fake.close();
    }
  });

  it("a group that cannot be read is one line at start and grants nothing", async () => {
    const fake = await createFakeSlackApi();
    fake.refuseUserGroup(GROUP, "missing_scope");
    const h = await startSlackHarness({ fake, operators: [`slack:${GROUP}`], userGroups: true });
    try {
      const lines = h.logger.records.filter((r) => r.level === "warn" && r.msg?.includes(GROUP));
      expect(lines.map((r) => r.msg)).toEqual([
        `Slack user group ${GROUP} (OPS_OPERATORS) cannot be read with usergroups.users.list (missing_scope; the app needs the usergroups:read scope): it grants nothing until it can be read`,
      ]);
      await h.command(`/energy ${freshAddress("group-unread")} 65k`);
      await h.settle();
      expect(h.fake.channelMessages(CHANNEL)).toEqual([]);
      expect(h.fake.ephemerals(OPERATOR.id).map(messageText).join("\n")).toContain("you are a viewer");
    } finally {
      await h.close();
      await fake.close();
    }
  });
});
