/**
 * The entity's Markdown drawn in the terminal UI: marked's lexer reads it (text still streaming
 * in is read again at each change), and each block becomes Ink elements: headings bold, code
 * blocks in colour and indented, list items with their marks, quotes with a bar, emphasis,
 * strong and inline code in their styles. What marked does not know is shown as written.
 */
import { Box, Text } from "ink";
import { lexer, type Token, type Tokens } from "marked";
import { createElement as h, memo, type ReactNode } from "react";
import { safeText } from "./text.js";

/** Characters of one text drawn: a longer one (a flood) is cut, the rest counted. */
export const MARKDOWN_CHARS = 20_000;

/** Drawn again only when its text changed (a spinner's tick re-reads no Markdown). */
export const Markdown = memo(function Markdown({ text }: { text: string }): ReactNode {
  const cut = text.length > MARKDOWN_CHARS;
  const shown = cut ? text.slice(0, MARKDOWN_CHARS) : text;
  const more = cut
    ? h(
        Text,
        { dimColor: true },
        `… ${text.length - MARKDOWN_CHARS} more characters (spell loom thread shows them)`,
      )
    : null;
  let tokens: Token[];
  try {
    tokens = lexer(shown);
  } catch {
    return h(Box, { flexDirection: "column" }, h(Text, null, safeText(shown)), more);
  }
  return h(Box, { flexDirection: "column" }, ...blocks(tokens), more);
});

function blocks(tokens: Token[]): ReactNode[] {
  return tokens.flatMap((t, i) => {
    const node = block(t, i);
    return node === null ? [] : [node];
  });
}

function block(t: Token, key: number): ReactNode {
  switch (t.type) {
    case "space":
      return null;
    case "heading":
      return h(Text, { key, bold: true }, ...inline((t as Tokens.Heading).tokens));
    case "paragraph":
      return h(Text, { key }, ...inline((t as Tokens.Paragraph).tokens));
    case "code":
      return h(
        Box,
        { key, paddingLeft: 2 },
        h(Text, { color: "cyan" }, safeText((t as Tokens.Code).text)),
      );
    case "blockquote":
      return h(
        Box,
        {
          key,
          borderStyle: "single",
          borderLeft: true,
          borderRight: false,
          borderTop: false,
          borderBottom: false,
          paddingLeft: 1,
          flexDirection: "column",
        },
        ...blocks((t as Tokens.Blockquote).tokens),
      );
    case "list": {
      const list = t as Tokens.List;
      const start = typeof list.start === "number" ? list.start : 1;
      return h(
        Box,
        { key, flexDirection: "column" },
        ...list.items.map((item, i) =>
          h(
            Box,
            { key: i },
            h(Text, null, list.ordered ? `${start + i}. ` : "• "),
            h(Box, { flexDirection: "column" }, ...blocks(item.tokens)),
          ),
        ),
      );
    }
    case "hr":
      return h(Text, { key, dimColor: true }, "───");
    case "text": {
      const text = t as Tokens.Text;
      return h(Text, { key }, ...(text.tokens ? inline(text.tokens) : [safeText(text.text)]));
    }
    default:
      return h(Text, { key }, safeText("raw" in t ? String(t.raw) : ""));
  }
}

function inline(tokens: Token[] | undefined): ReactNode[] {
  if (!tokens) return [];
  return tokens.map((t, key) => {
    switch (t.type) {
      case "strong":
        return h(Text, { key, bold: true }, ...inline((t as Tokens.Strong).tokens));
      case "em":
        return h(Text, { key, italic: true }, ...inline((t as Tokens.Em).tokens));
      case "del":
        return h(Text, { key, strikethrough: true }, ...inline((t as Tokens.Del).tokens));
      case "codespan":
        return h(Text, { key, color: "yellow" }, safeText((t as Tokens.Codespan).text));
      case "link": {
        const link = t as Tokens.Link;
        return h(
          Text,
          { key, underline: true },
          ...inline(link.tokens),
          link.text === link.href ? "" : ` (${safeText(link.href)})`,
        );
      }
      case "br":
        return "\n";
      case "text": {
        const text = t as Tokens.Text;
        return text.tokens
          ? h(Text, { key }, ...inline(text.tokens))
          : h(Text, { key }, safeText(text.text));
      }
      case "escape":
        return h(Text, { key }, safeText((t as Tokens.Escape).text));
      default:
        return h(Text, { key }, safeText("raw" in t ? String(t.raw) : ""));
    }
  });
}
