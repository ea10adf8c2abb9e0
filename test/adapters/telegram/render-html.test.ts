import { describe, expect, it } from "vitest";
import { escapeHtml } from "../../../adapters/telegram/render/escape.js";
import { renderReply } from "../../../adapters/telegram/render/html.js";
import {
  bold,
  buttons,
  code,
  context,
  errorReply,
  fields,
  file,
  header,
  italic,
  link,
  publicReply,
  text,
} from "../../../src/core/reply.js";
import { parseTelegramHtml } from "../../fakes/telegram-html.js";

describe("Telegram HTML rendering", () => {
  it("escapes <, > and & in every text from outside", () => {
    expect(escapeHtml(`<b>"a" & 'b'</b>`)).toBe(`&lt;b&gt;"a" &amp; 'b'&lt;/b&gt;`);
    const reply = publicReply("s <x>", [
      header("<h1> & co"),
      text("plain <i>", bold("b&"), italic("i>"), code("c<")),
      fields(["<label>", "v&l"]),
      context("muted & ", code("<c>")),
    ]);
    const { html } = renderReply(reply);
    expect(html).toBe(
      [
        "<b>&lt;h1&gt; &amp; co</b>",
        "plain &lt;i&gt;<b>b&amp;</b><i>i&gt;</i><code>c&lt;</code>",
        "<b>&lt;label&gt;:</b> v&amp;l",
        "<i>muted &amp; </i><code>&lt;c&gt;</code>",
      ].join("\n"),
    );
    expect(parseTelegramHtml(html)).toEqual({
      ok: true,
      text: "<h1> & co\nplain <i>b&i>c<\n<label>: v&l\nmuted & <c>",
    });
  });

  it("links only http(s) and tg:// targets, with the address escaped in the attribute", () => {
    const { html } = renderReply(
      publicReply("l", [
        text(link("tx", 'https://tronscan.org/#/transaction/a"b&c'), " ", link("bad", "javascript:alert(1)")),
      ]),
    );
    expect(html).toBe('<a href="https://tronscan.org/#/transaction/a&quot;b&amp;c">tx</a> bad');
  });

  it("drops control characters and lone surrogates Telegram would refuse", () => {
    expect(escapeHtml("a\u0000b\u001bc\nd\ud800e😀")).toBe("abc\nde😀");
  });

  it("turns buttons into an inline keyboard with the token as callback_data, three per row", () => {
    const tokens = ["t1", "t2", "t3", "t4"];
    const { keyboard, html } = renderReply(
      publicReply("Pick a network", [buttons(...tokens.map((token) => ({ label: `<${token}>`, token })))]),
    );
    expect(html).toBe("Pick a network");
    expect(keyboard).toEqual({
      inline_keyboard: [
        [
          { text: "<t1>", callback_data: "t1" },
          { text: "<t2>", callback_data: "t2" },
          { text: "<t3>", callback_data: "t3" },
        ],
        [{ text: "<t4>", callback_data: "t4" }],
      ],
    });
  });

  it("refuses a token over 64 bytes rather than send a message Telegram rejects", () => {
    expect(() => renderReply(publicReply("x", [buttons({ label: "x", token: "é".repeat(33) })]))).toThrow(
      /64-byte callback_data/,
    );
  });

  it("sends files apart; a reply of only a file has its summary as caption", () => {
    const attachment = { filename: "s.csv", contentType: "text/csv", bytes: new Uint8Array([1]) };
    expect(renderReply(publicReply("Statement <R1>", [file(attachment)]))).toEqual({
      html: "",
      files: [attachment],
      caption: "Statement &lt;R1&gt;",
    });
    expect(renderReply(errorReply("one line")).html).toBe("one line");
  });
});
