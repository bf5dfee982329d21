-- Custom migration (drizzle-kit generate --custom): a second FTS5 index over
-- `search_entries.text`, by trigram, for Chinese, Japanese and Korean text.
-- unicode61 (`search_fts`) makes a run of CJK characters one token, so a word
-- inside a sentence (数据库 in 我们的数据库连接失败了) is never found there; a
-- trigram index finds any substring of three or more characters.
-- Only rows holding a CJK character are indexed (the conditions are
-- src/db/cjk.ts' cjkSqlCondition(), checked by a unit test; D1 allows GLOB
-- patterns of 50 bytes, hence several): a query routed here always has a CJK
-- piece, so no other row can match, and Latin-only text would triple its index
-- size for nothing. Because the index is partial, it is back-filled with
-- INSERT … SELECT rather than 'rebuild' (which would index every row and
-- disagree with the delete trigger), and FTS5's 'integrity-check' does not
-- apply to it. Rows of `search_entries` are never updated, as for `search_fts`.
CREATE VIRTUAL TABLE `search_trigram` USING fts5(`text`, content='search_entries', content_rowid='id', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `search_entries_trigram_ai` AFTER INSERT ON `search_entries` WHEN (new.`text` GLOB '*[一-鿿ぁ-ゟァ-ヿ가-힣々-〇㐀-䶿]*' OR new.`text` GLOB '*[豈-﫿ｦ-ￜᄀ-ᇿㄱ-ㆎꥠ-꥿ힰ-퟿]*' OR new.`text` GLOB '*[ㄅ-ㄯㇰ-ㇿ𛀀-𛅯𠀀-𲎯]*') BEGIN
  INSERT INTO `search_trigram`(rowid, `text`) VALUES (new.`id`, new.`text`);
END;
--> statement-breakpoint
CREATE TRIGGER `search_entries_trigram_ad` AFTER DELETE ON `search_entries` WHEN (old.`text` GLOB '*[一-鿿ぁ-ゟァ-ヿ가-힣々-〇㐀-䶿]*' OR old.`text` GLOB '*[豈-﫿ｦ-ￜᄀ-ᇿㄱ-ㆎꥠ-꥿ힰ-퟿]*' OR old.`text` GLOB '*[ㄅ-ㄯㇰ-ㇿ𛀀-𛅯𠀀-𲎯]*') BEGIN
  INSERT INTO `search_trigram`(`search_trigram`, rowid, `text`) VALUES ('delete', old.`id`, old.`text`);
END;
--> statement-breakpoint
INSERT INTO `search_trigram`(rowid, `text`) SELECT `id`, `text` FROM `search_entries` WHERE (`text` GLOB '*[一-鿿ぁ-ゟァ-ヿ가-힣々-〇㐀-䶿]*' OR `text` GLOB '*[豈-﫿ｦ-ￜᄀ-ᇿㄱ-ㆎꥠ-꥿ힰ-퟿]*' OR `text` GLOB '*[ㄅ-ㄯㇰ-ㇿ𛀀-𛅯𠀀-𲎯]*');
