ALTER TABLE "audit_events" ADD COLUMN "seq" bigint;--> statement-breakpoint
UPDATE "audit_events" SET "seq" = "numbered"."n" FROM (SELECT "id", row_number() OVER (ORDER BY "id") AS "n" FROM "audit_events") AS "numbered" WHERE "audit_events"."id" = "numbered"."id";--> statement-breakpoint
CREATE UNIQUE INDEX "audit_events_seq_key" ON "audit_events" USING btree ("seq");--> statement-breakpoint
CREATE SEQUENCE "audit_events_seq";--> statement-breakpoint
SELECT setval('audit_events_seq', (SELECT COALESCE(MAX("seq"), 0) + 1 FROM "audit_events"), false);--> statement-breakpoint
CREATE FUNCTION "audit_events_number"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	-- At commit (the trigger is deferred) and one writer at a time: the feed's numbers follow commit order,
	-- so a reader that has seen number n has seen everything below it. Then the other instances hear of it.
	-- A row copied in with its number (db copy) keeps it.
	IF NEW."seq" IS NULL THEN
		PERFORM pg_advisory_xact_lock(hashtextextended('cfgsync audit feed', 0));
		UPDATE "audit_events" SET "seq" = nextval('audit_events_seq') WHERE "id" = NEW."id";
		PERFORM pg_notify('cfgsync_events', '');
	END IF;
	RETURN NULL;
END
$$;--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "audit_events_number" AFTER INSERT ON "audit_events" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "audit_events_number"();
