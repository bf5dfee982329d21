/**
 * Agent text as markdown: parsed by `marked`, sanitized by DOMPurify before
 * it touches the DOM. Links open in a new tab without access to this page.
 * @module
 */
import DOMPurify from "dompurify";
import { marked } from "marked";
import { useMemo } from "preact/hooks";

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

export function renderMarkdown(text: string): string {
  const html = marked.parse(text, { async: false, gfm: true });
  // No inline styles or forms: the page's CSP would refuse them anyway.
  return DOMPurify.sanitize(html, { FORBID_ATTR: ["style"], FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select"] });
}

export function Markdown({ text, class: className = "markdown" }: { text: string; class?: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return <div class={className} dangerouslySetInnerHTML={{ __html: html }} />;
}
