-- Custom migration (drizzle-kit generate --custom): drizzle cannot model an FTS5
-- virtual table or triggers, so they are written here by hand.
-- `search_fts` indexes `search_entries.text` external-content style: the rows live
-- in `search_entries` (drizzle's table), the triggers keep the index in step, and
-- deleting a session's rows there removes them from the index too.
CREATE VIRTUAL TABLE `search_fts` USING fts5(`text`, content='search_entries', content_rowid='id', tokenize='porter unicode61');
--> statement-breakpoint
CREATE TRIGGER `search_entries_ai` AFTER INSERT ON `search_entries` BEGIN
  INSERT INTO `search_fts`(rowid, `text`) VALUES (new.`id`, new.`text`);
END;
--> statement-breakpoint
CREATE TRIGGER `search_entries_ad` AFTER DELETE ON `search_entries` BEGIN
  INSERT INTO `search_fts`(`search_fts`, rowid, `text`) VALUES ('delete', old.`id`, old.`text`);
END;
