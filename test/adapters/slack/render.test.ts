import { describe, expect, it } from "vitest";
import {
  BLOCK_KIT_LIMITS,
  pressedByBlock,
  renderMrkdwnText,
  renderReply,
  type SlackBlock,
  splitText,
} from "../../../adapters/slack/render/blocks.js";
import { clipMrkdwn, inertText, safeHref, spanToMrkdwn } from "../../../adapters/slack/render/mrkdwn.js";
import {
  bold,
  buttons,
  code,
  context,
  fields,
  file,
  header,
  italic,
  link,
  publicReply,
  type Reply,
  text,
} from "../../../src/core/reply.js";
import { blocksProblem } from "../../fakes/slack-blocks.js";

const HOSTILE = "<!channel> <http://x|y> & *bold* _it_ ~no~ `tick` @here <@U0BOSS>";

const sectionText = (block: SlackBlock | undefined): string =>
  block?.type === "section" && "text" in block ? block.text.text : "";

describe("mrkdwn: text from outside is inert", () => {
  it("renders hostile service text without a mention, a link or formatting", () => {
    const out = inertText(HOSTILE);
    // Slack's three entities: no `<…>` survives, so no mention or link can form.
    expect(out).not.toMatch(/[<>]/);
    expect(out).toContain("&lt;!channel&gt;");
    expect(out).toContain("&lt;http://x|y&gt;");
    expect(out).toContain("&lt;@U0BOSS&gt;");
    expect(out).toContain(" &amp; ");
    // No formatting marker survives: each has a look-alike that Slack does not parse.
    expect(out).not.toMatch(/[*_~`]/);
    expect(out).toContain("∗bold∗");
    expect(out).toContain("∼no∼");
    // Bare broadcasts are broken by an invisible word joiner.
    expect(out).toContain("@\u2060here");
    expect(out.replace(/\u2060/g, "")).toContain("@here");
  });

  it("keeps an underscore inside a word (ids copy as they are) and drops control characters", () => {
    expect(inertText("client_order_id")).toBe("client_order_id");
    expect(inertText("a\u0007b\u202ecd\nnext\tcol")).toBe("abcd\nnext\tcol");
  });

  it("styles spans with our markers around inert text, spaces kept outside", () => {
    expect(spanToMrkdwn(bold(" *x* & y "))).toBe(" *∗x∗ &amp; y* ");
    expect(spanToMrkdwn(italic("a_b"))).toBe("_a_b_");
    expect(spanToMrkdwn(code("T`x` <y> *z*"))).toBe("`Tˋxˋ &lt;y&gt; *z*`");
    expect(spanToMrkdwn(bold("line one\nline two"))).toBe("*line one*\n*line two*");
  });

  it("links only http(s) targets, with the target's | and & made safe", () => {
    expect(spanToMrkdwn(link("tx <abc>", "https://tronscan.org/#/transaction/ab|c&d=1"))).toBe(
      "<https://tronscan.org/#/transaction/ab%7Cc&amp;d=1|tx &lt;abc&gt;>",
    );
    expect(spanToMrkdwn(link("click", "javascript:alert(1)"))).toBe("click");
    expect(safeHref("not a url")).toBeUndefined();
    expect(spanToMrkdwn(link("https://x.test/a", "https://x.test/a"))).toBe("<https://x.test/a>");
  });

  it("clips without cutting an entity or a link in half", () => {
    expect(clipMrkdwn("abc &amp; def", 7)).toBe("abc …");
    expect(clipMrkdwn("see <https://x.test|here> now", 12)).toBe("see …");
    expect(clipMrkdwn("short", 10)).toBe("short");
  });
});

describe("Block Kit rendering of the Reply model", () => {
  it("renders header, text, fields, context, buttons and divider, and collects files", () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const reply: Reply = {
      summary: "Quote <!here> & more",
      visibility: "public",
      blocks: [
        header("Energy quote"),
        text("Address ", code("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t")),
        fields(["Cost", "3.12 TRX"], ["Label *from* service", "<@U1>"]),
        context("read 2 s ago"),
        buttons(
          { label: "Confirm 3.12 TRX", token: "tok_confirm_1234567890ab", style: "primary" },
          { label: "Cancel", token: "tok_cancel_1234567890abc", style: "danger" },
        ),
        { type: "divider" },
        file({ filename: "s.csv", contentType: "text/csv", bytes }),
      ],
    };
    const message = renderReply(reply);
    expect(message.text).toBe("Quote &lt;!here&gt; &amp; more");
    expect(message.files).toHaveLength(1);
    expect(message.files[0]?.bytes).toBe(bytes);
    expect(message.blocks).toEqual([
      { type: "header", text: { type: "plain_text", text: "Energy quote", emoji: true } },
      { type: "section", text: { type: "mrkdwn", text: "Address `TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t`" } },
      {
        type: "section",
        fields: [
          { type: "mrkdwn", text: "*Cost*\n3.12 TRX" },
          { type: "mrkdwn", text: "*Label ∗from∗ service*\n&lt;@U1&gt;" },
        ],
      },
      { type: "context", elements: [{ type: "mrkdwn", text: "read 2 s ago" }] },
      {
        type: "actions",
        elements: [
          {
            type: "button",
            action_id: "opsbot:0",
            text: { type: "plain_text", text: "Confirm 3.12 TRX", emoji: true },
            value: "tok_confirm_1234567890ab",
            style: "primary",
          },
          {
            type: "button",
            action_id: "opsbot:1",
            text: { type: "plain_text", text: "Cancel", emoji: true },
            value: "tok_cancel_1234567890abc",
            style: "danger",
          },
        ],
      },
      { type: "divider" },
    ]);
    expect(blocksProblem(message.blocks)).toBeUndefined();
  });

  it("keeps every Block Kit limit with oversized input, and Slack's checks accept the result", () => {
    const long = "x".repeat(2_500);
    const reply = publicReply("s".repeat(5_000), [
      header("H".repeat(400)),
      text(`${long}\n${long}\n${"y".repeat(4_000)}`),
      fields(...Array.from({ length: 23 }, (_, i): [string, string] => [`F${i}`, "v".repeat(2_500)])),
      buttons(...Array.from({ length: 30 }, (_, i) => ({ label: `${"L".repeat(100)}${i}`, token: `t${i}` }))),
    ]);
    const message = renderReply(reply);
    expect(message.text.length).toBeLessThanOrEqual(BLOCK_KIT_LIMITS.fallbackText);
    expect(blocksProblem(message.blocks)).toBeUndefined();
    const [head] = message.blocks;
    expect(head?.type === "header" && head.text.text.length).toBe(150);
    // The long text became three sections, none over 3000 characters.
    const texts = message.blocks.filter((b) => b.type === "section" && "text" in b);
    expect(texts.map((b) => sectionText(b).length)).toEqual([2_500, 2_500, expect.any(Number)]);
    // The 4000-character line is cut with a note of how much is not shown.
    expect(sectionText(texts[2])).toMatch(/^y+… \(1,\d{3} more characters not shown\)$/);
    expect(sectionText(texts[2]).length).toBeLessThanOrEqual(3_000);
    // 23 fields → sections of 10, 10 and 3.
    const fieldCounts = message.blocks.flatMap((b) =>
      b.type === "section" && "fields" in b ? [b.fields.length] : [],
    );
    expect(fieldCounts).toEqual([10, 10, 3]);
    // 30 buttons → rows of 25 and 5, every action_id unique, every label within 75.
    const rows = message.blocks.filter((b) => b.type === "actions");
    expect(rows.map((r) => (r.type === "actions" ? r.elements.length : 0))).toEqual([25, 5]);
  });

  it("drops middle blocks past 50 but keeps the buttons, and says so", () => {
    const many = Array.from({ length: 70 }, (_, i) => text(`line ${i}`));
    const message = renderReply(publicReply("many", [...many, buttons({ label: "Confirm", token: "tok" })]));
    expect(message.blocks).toHaveLength(50);
    expect(message.blocks.at(-1)?.type).toBe("actions");
    const notice = message.blocks.at(-2);
    expect(notice?.type === "context" && notice.elements[0]?.text).toBe(
      "… 22 more parts not shown (Slack shows 50 blocks).",
    );
    expect(blocksProblem(message.blocks)).toBeUndefined();
  });

  it("leaves out blocks Slack would refuse as empty", () => {
    const message = renderReply(publicReply("only summary", [header("  "), text(""), context("")]));
    expect(message.blocks).toEqual([]);
    expect(message.text).toBe("only summary");
  });

  it("splits at line ends, and clips a single line that is too long", () => {
    expect(splitText("aa\nbb\ncc", 5)).toEqual(["aa\nbb", "cc"]);
    expect(splitText("abcdefgh", 5)).toEqual(["abcd…"]);
  });

  it("renders one mrkdwn text (for a file's comment) with hostile text still inert", () => {
    const reply = publicReply("Statement", [
      header("Statement *ready*"),
      fields(["Note", "<!channel> & `x`"]),
      buttons({ label: "Never shown", token: "t" }),
    ]);
    expect(renderMrkdwnText(reply)).toBe("*Statement ∗ready∗*\n*Note*: &lt;!channel&gt; &amp; ˋxˋ");
  });

  it("names who pressed a button with a real mention, and anything else as text", () => {
    expect(pressedByBlock("Confirm 3 TRX", "U0OPER")).toEqual({
      type: "context",
      elements: [{ type: "mrkdwn", text: "*Confirm 3 TRX* by <@U0OPER>" }],
    });
    const forged = pressedByBlock("*x*", "<!channel>");
    expect(forged.type === "context" && forged.elements[0]?.text).toBe("*∗x∗* by &lt;!channel&gt;");
  });
});

describe("Block Kit: a cut text says how much was left out", () => {
  it("a field over 2000 characters ends with the count of characters not shown, not a bare '…'", () => {
    const message = renderReply(publicReply("s", [fields(["Transactions", "h".repeat(5_000)])]));
    const [section] = message.blocks;
    const field = section?.type === "section" && "fields" in section ? section.fields[0]?.text : "";
    expect(field?.length).toBeLessThanOrEqual(2000);
    expect(field).toMatch(/… \(3,\d{3} more characters not shown\)$/);
    expect(blocksProblem(message.blocks)).toBeUndefined();
  });
});
