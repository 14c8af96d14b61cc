-- Privacy by design (docs/decisions.md, "Export, erase and retention"). Per project: how long email
-- bodies and inbound mail are kept (null: for ever), where the purge of email bodies has got to
-- (so each run starts there instead of walking what it already emptied), and whether an erase
-- keeps the salted hash of the address that stops it from coming back.
ALTER TABLE "projects" ADD COLUMN "email_body_retention_days" integer;
--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "inbound_retention_days" integer;
--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "email_bodies_purged_before" timestamp (3) with time zone;
--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "erase_keeps_hash" boolean DEFAULT true NOT NULL;
--> statement-breakpoint
-- When an email's content (body, text, headers, attachments) was removed: by the retention or an erase.
ALTER TABLE "emails" ADD COLUMN "content_removed_at" timestamp (3) with time zone;
--> statement-breakpoint
-- The suppression an erase leaves: HMAC-SHA256 of the address under the instance's erasure salt,
-- keyed by project. Nothing else about the person.
CREATE TABLE "erased_addresses" (
	"project_id" uuid NOT NULL REFERENCES "projects"("id") ON DELETE CASCADE,
	"address_hash" text NOT NULL,
	"erased_at" timestamp (3) with time zone NOT NULL,
	PRIMARY KEY ("project_id", "address_hash")
);
--> statement-breakpoint
-- An erase finds a contact's inbound mail and its events' webhook deliveries by index.
CREATE INDEX "inbound_emails_contact" ON "inbound_emails" USING btree ("contact_id") WHERE contact_id IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "webhook_deliveries_event" ON "webhook_deliveries" USING btree ("event_id");
--> statement-breakpoint
-- Audit entries stay append-only, but for the erase of a contact: an entry that names a suppression
-- by its address loses the address (`target_id` becomes 'erased'), in the erase's own transaction,
-- which says so with `set_config('postbox.audit_erase', 'on', true)`.
CREATE OR REPLACE FUNCTION "audit_log_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'DELETE' AND current_setting('postbox.audit_purge', true) = 'on' THEN
		RETURN NULL;
	END IF;
	IF TG_OP = 'UPDATE' AND current_setting('postbox.audit_erase', true) = 'on' THEN
		RETURN NULL;
	END IF;
	RAISE EXCEPTION 'audit_log is append-only (%)', TG_OP USING ERRCODE = '42501';
END
$$;
