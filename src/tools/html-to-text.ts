/**
 * HTML reduced to readable text for the model. Not a parser: a few ordered
 * regex passes that are good enough for documentation pages and cost nothing
 * to run in a Worker. Script, style and similar bodies are dropped, source
 * whitespace collapses as a browser would, block elements become line or
 * paragraph breaks, `<pre>` keeps its layout, and entities are decoded after
 * tags are gone (so `&lt;b&gt;` stays text).
 */

/** Elements whose content is never prose. */
const DROPPED = ["script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "head", "title"];

/** Blocks that separate paragraphs (a blank line)… */
const PARAGRAPH =
  "address|article|aside|blockquote|details|dialog|dl|fieldset|figure|footer|form|h[1-6]|header|hr|main|nav|ol|p|section|table|ul";
/** …and blocks that only start a new line. */
const LINE = "body|caption|dd|div|dt|figcaption|html|li|summary|tbody|tfoot|thead|tr";

// Private-use markers: where a tag implied a break, resolved once whitespace is collapsed.
const LINE_MARK = "\u0001";
const PARAGRAPH_MARK = "\u0002";
const PRE_MARK = "\u0003";

const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  ndash: "–",
  mdash: "—",
  hellip: "…",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  laquo: "«",
  raquo: "»",
  bull: "•",
  middot: "·",
  copy: "©",
  reg: "®",
  trade: "™",
  deg: "°",
  times: "×",
  larr: "←",
  rarr: "→",
};

export function htmlToText(html: string): string {
  let text = html.replace(/<!--[\s\S]*?-->/g, "").replace(/<[!?][^>]*>/g, "");
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1];
  for (const tag of DROPPED) {
    text = text.replace(new RegExp(`<${tag}\\b[\\s\\S]*?</${tag}\\s*>`, "gi"), " ");
  }
  // <pre> keeps its line breaks and indentation; set it aside before whitespace is collapsed.
  const pres: string[] = [];
  text = text.replace(/<pre\b[^>]*>([\s\S]*?)<\/pre\s*>/gi, (_, body: string) => {
    pres.push(decodeEntities(stripTags(body)).replace(/^\n|\s+$/g, ""));
    return `${PARAGRAPH_MARK}${PRE_MARK}${pres.length - 1}${PRE_MARK}${PARAGRAPH_MARK}`;
  });
  text = text
    .replace(/\s+/g, " ")
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<li\b[^>]*>/gi, `${LINE_MARK}- `)
    .replace(/<\/?(?:td|th)\b[^>]*>/gi, " ")
    .replace(new RegExp(`</?(?:${PARAGRAPH})\\b[^>]*>`, "gi"), PARAGRAPH_MARK)
    .replace(new RegExp(`</?(?:${LINE})\\b[^>]*>`, "gi"), LINE_MARK);
  text = decodeEntities(stripTags(text))
    .replace(/[ \t]*(?:[\n\u0001\u0002][ \t]*)+/g, (run) => {
      const explicit = run.split("\n").length - 1;
      return "\n".repeat(Math.min(2, Math.max(run.includes(PARAGRAPH_MARK) ? 2 : 1, explicit)));
    })
    .replace(/ {2,}/g, " ")
    .trim()
    .replace(/\u0003(\d+)\u0003/g, (_, index: string) => pres[Number(index)] ?? "");
  const heading = title === undefined ? "" : decodeEntities(stripTags(title)).replace(/\s+/g, " ").trim();
  // <title> lives in the dropped <head>; keep it as a heading unless the body already starts with it.
  return heading && !text.startsWith(heading) ? `${heading}\n\n${text}`.trim() : text;
}

function stripTags(html: string): string {
  return html.replace(/<\/?[A-Za-z][^>]*>/g, "");
}

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z][a-z0-9]*);/gi, (whole, body: string) => {
    if (body[0] === "#") {
      const code = body[1] === "x" || body[1] === "X" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      // Control characters and lone surrogates stay encoded: they are not text (and the former are our markers).
      const printable = code >= 0x20 || code === 0x09 || code === 0x0a;
      return Number.isInteger(code) && printable && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? whole;
  });
}
