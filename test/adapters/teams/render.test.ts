import { describe, expect, it } from "vitest";
import { TEAMS_PLATFORM } from "../../../adapters/teams/platform.js";
import { renderMessage } from "../../../adapters/teams/render.js";
import { mentionsFor } from "../../../src/core/alerts/index.js";
import { bold, code, fields, image, publicReply, text } from "../../../src/core/reply.js";

const noFiles = async () => "https://opsbot.test/files/x";

describe("teams: platform facts and rendering", () => {
  it("follow-ups go in a channel's thread; a chat stays flat; commands have no slash", () => {
    const channel = { platform: "teams", id: "19:abc@thread.tacv2" };
    expect(TEAMS_PLATFORM.followUp(channel, "171")).toEqual({ ...channel, threadId: "171" });
    const chat = { platform: "teams", id: "a:1personal" };
    expect(TEAMS_PLATFORM.followUp(chat, "171")).toEqual(chat);
    expect(TEAMS_PLATFORM.commandPrefix).toBe("");
  });

  it("OPS_ONCALL's teams: entries become <at> mentions with their Entra object id", async () => {
    const id = "0c0c0c0c-0000-4000-8000-00000000a001";
    const spans = mentionsFor([`teams:${id}`, "slack:U1"], TEAMS_PLATFORM);
    const message = await renderMessage(publicReply("Escalated", [text(...spans, ": look")]), noFiles);
    expect(message.text).toBe(`<at>@${id}</at>: look`);
    expect(message.entities).toEqual([
      { type: "mention", text: `<at>@${id}</at>`, mentioned: { id, name: `@${id}` } },
    ]);
  });

  it("text only is markdown with its special characters escaped; fields and pictures make a card and an image", async () => {
    const plain = await renderMessage(publicReply("x", [text(bold("a*b"), " ", code("T1"))]), noFiles);
    expect(plain.text).toBe("**a\\*b** `T1`");
    const png = new Uint8Array([137, 80, 78, 71]);
    const rich = await renderMessage(
      publicReply("Chart", [
        fields(["Energy", "65,000"]),
        image({ filename: "c.png", png, width: 1, height: 1, summary: "prices" }),
      ]),
      noFiles,
    );
    expect(rich.attachments?.[0]?.contentType).toBe("application/vnd.microsoft.card.adaptive");
    expect(rich.attachments?.[0]?.content).toMatchObject({
      version: "1.5",
      body: [{ type: "FactSet" }, expect.anything()],
    });
    expect(rich.attachments?.[1]).toEqual({
      contentType: "image/png",
      contentUrl: `data:image/png;base64,${Buffer.from(png).toString("base64")}`,
      name: "c.png",
    });
  });
});
