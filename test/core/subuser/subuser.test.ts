import { describe, expect, it } from "vitest";
import type { ActionContext } from "../../../src/core/command.js";
import { subuserDeleteAction } from "../../../src/core/subuser/delete-subuser.js";
import { SUBUSER_DELETE_KIND } from "../../../src/core/subuser/subuser-payload.js";
import {
  admin,
  channel,
  operator,
  replyButtons,
  replyText,
  useCoreHarness,
  viewer,
} from "../../support/core-harness.js";

/** `subuser delete` and the help that lists both new commands, over the real core and sandbox. */
const harness = useCoreHarness();

describe("help lists host status and subuser delete", () => {
  it("a viewer sees host status open, host start / stop and subuser marked with the role they need", async () => {
    const h = await harness.setup();
    const text = replyText(await h.run(viewer, "help"));
    const host = text.split("\n").find((l) => l.startsWith("/host "));
    expect(host).toContain("/host start|stop|status <address>");
    expect(host).toContain("status");
    expect(host).toContain("(host start, host stop: needs operator)");
    const subuser = text.split("\n").find((l) => l.startsWith("/subuser "));
    expect(subuser).toContain("/subuser delete <user_id>");
    expect(subuser).toContain("(needs admin)");
    const detail = replyText(await h.run(viewer, "help host"));
    expect(detail).toContain("host start, host stop: needs operator");
  });

  it("an operator's help marks nothing of host", async () => {
    const h = await harness.setup();
    const host = replyText(await h.run(operator, "help"))
      .split("\n")
      .find((l) => l.startsWith("/host "));
    expect(host).not.toContain("needs operator");
  });
});

describe("subuser delete", () => {
  it("says what happens and offers the button; nothing is sent before it is pressed", async () => {
    const h = await harness.setup();
    const reply = await h.run(admin, "subuser delete 31337");
    expect(replyText(reply)).toContain("A non-zero balance on the sub-user is NOT transferred");
    expect(replyButtons(reply).map((b) => [b.label, b.style])).toEqual([
      ["Delete sub-user", "danger"],
      ["Cancel", undefined],
    ]);
    expect(reply.visibility).toBe("public");
    expect(h.sandbox.calls()).toEqual([]);
  });

  it("run again by the recovery after a crash, a 400 says the first attempt most likely deleted it", async () => {
    const h = await harness.setup();
    const sub = h.sandbox.reports.addSubuser(h.sandbox.account);
    await h.service.account.deleteSubuser(sub.userId);
    const ctx: ActionContext = {
      invocation: { kind: "action", actor: admin, conversation: channel, token: "t" },
      role: "admin",
      deps: h.deps,
      record: {
        token: "t",
        kind: SUBUSER_DELETE_KIND,
        payload: { userId: sub.userId },
        role: "admin",
        conversation: channel,
        createdBy: "telegram:4242",
        confirmationId: "c0nf1rmat10n-1d-0000001",
        createdAt: h.clock.now(),
        expiresAt: h.clock.now() + 60_000,
      },
      recovered: true,
    };
    const reply = await subuserDeleteAction.run(ctx, { userId: sub.userId });
    expect(replyText(reply)).toBe(
      `Sub-user ${sub.userId} is gone: the service now says it is not found or not a sub-user (400: User not found); the attempt made before the bot restarted most likely deleted it.`,
    );
  });

  it("a lost answer is not resent and says the outcome is not known", async () => {
    const h = await harness.setup();
    const sub = h.sandbox.reports.addSubuser(h.sandbox.account);
    const asked = await h.run(admin, `subuser delete ${sub.userId}`);
    h.sandbox.inject("subuser.delete", { kind: "lost" });
    const token = replyButtons(asked)[0]?.token ?? "";
    const reply = await h.click(admin, token);
    expect(replyText(reply)).toMatch(/not known whether sub-user \d+ was deleted/);
    expect(h.sandbox.calls("subuser.delete")).toHaveLength(1);
  });
});
