import { describe, expect, it } from "vitest";
import { decodeEntities, htmlToText } from "../../../src/tools/html-to-text.js";

describe("htmlToText", () => {
  it.each([
    ["<p>Hello <b>world</b></p>", "Hello world"],
    ["<p>One</p><p>Two</p>", "One\n\nTwo"],
    ["<p>Hello\n  world</p>", "Hello world"],
    ["<div>a</div><div>b</div>", "a\nb"],
    ["<!DOCTYPE html><?xml version='1.0'?><p>x</p>", "x"],
    ["a<br><br><br>b", "a\n\nb"],
    ["<pre>  indented\n    more &lt;x&gt;</pre><p>after</p>", "  indented\n    more <x>\n\nafter"],
    ["&#1;&#9;x", "&#1;\tx"],
    ["a<br>b<br/>c<BR />d", "a\nb\nc\nd"],
    ["<ul><li>x</li><li>y</li></ul>", "- x\n- y"],
    ["<h1>Title</h1>text", "Title\n\ntext"],
    ["<script>var a = '<p>no</p>';</script>kept", "kept"],
    ["<style>p { color: red }</style>kept", "kept"],
    ["<SCRIPT type='module'>x()</SCRIPT >kept", "kept"],
    ["<noscript>enable js</noscript>kept", "kept"],
    ["<!-- <p>hidden</p> -->shown", "shown"],
    ["a &amp; b &lt;tag&gt; &quot;q&quot; &#39;s&#39;", `a & b <tag> "q" 's'`],
    ["&amp;lt;", "&lt;"],
    ["&#x41;&#66;&nbsp;C", "AB C"],
    ["&unknown; &#xD800;", "&unknown; &#xD800;"],
    ["  lots   of\t\tspace  ", "lots of space"],
    ["<div>a</div>\n\n\n\n<div>b</div>", "a\nb"],
    ["<header>h</header><main>m</main>", "h\n\nm"],
    ["<table><tr><td>1</td><td>2</td></tr><tr><td>3</td></tr></table>", "1 2\n3"],
  ])("%j → %j", (html, expected) => {
    expect(htmlToText(html)).toBe(expected);
  });

  it("keeps the title and drops the rest of <head>", () => {
    const html = "<html><head><title>Docs &amp; more</title><meta name=x><style>a{}</style></head><body><p>Body</p></body></html>";
    expect(htmlToText(html)).toBe("Docs & more\n\nBody");
    expect(htmlToText("<title>T</title><body><p>x</p><p>y</p></body>")).toBe("T\n\nx\n\ny");
  });

  it("does not duplicate a title the body starts with", () => {
    expect(htmlToText("<title>Guide</title><h1>Guide</h1><p>x</p>")).toBe("Guide\n\nx");
  });

  it("decodes entities in one pass", () => {
    expect(decodeEntities("&amp;amp; &mdash; &hellip; &rarr;")).toBe("&amp; — … →");
  });
});
