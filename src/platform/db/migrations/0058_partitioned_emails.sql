-- `emails` becomes a table partitioned by month of `created_at`, as `events` (0030) and
-- `webhook_deliveries` (0057) did and in the same way: an existing table with rows is attached, as
-- it is, as the default partition (a moment's lock at any size), and the worker seals it and makes
-- monthly partitions ahead (platform/db/partitions.ts). Months past EMAIL_RETENTION_DAYS, when it is
-- set, are dropped whole (docs/operations.md, "Emails and their retention").
ALTER TABLE "emails" RENAME TO "emails_unpartitioned";
--> statement-breakpoint
ALTER INDEX "emails_pkey" RENAME TO "emails_unpartitioned_pkey";
--> statement-breakpoint
ALTER INDEX "emails_project_created" RENAME TO "emails_unpartitioned_project_created";
--> statement-breakpoint
ALTER INDEX "emails_contact" RENAME TO "emails_unpartitioned_contact";
--> statement-breakpoint
ALTER INDEX "emails_campaign" RENAME TO "emails_unpartitioned_campaign";
--> statement-breakpoint
ALTER INDEX "emails_campaign_queued" RENAME TO "emails_unpartitioned_campaign_queued";
--> statement-breakpoint
ALTER INDEX "emails_attachment_set" RENAME TO "emails_unpartitioned_attachment_set";
--> statement-breakpoint
ALTER INDEX "emails_due_transactional" RENAME TO "emails_unpartitioned_due_transactional";
--> statement-breakpoint
ALTER INDEX "emails_due_campaign" RENAME TO "emails_unpartitioned_due_campaign";
--> statement-breakpoint
ALTER INDEX "emails_held_slots" RENAME TO "emails_unpartitioned_held_slots";
--> statement-breakpoint
ALTER INDEX "emails_campaign_sent" RENAME TO "emails_unpartitioned_campaign_sent";
--> statement-breakpoint
ALTER INDEX "emails_campaign_paced" RENAME TO "emails_unpartitioned_campaign_paced";
--> statement-breakpoint
ALTER INDEX "emails_project_recipient" RENAME TO "emails_unpartitioned_project_recipient";
--> statement-breakpoint
ALTER TABLE "emails_unpartitioned" RENAME CONSTRAINT "emails_project_id_projects_id_fk" TO "emails_unpartitioned_project_id_fk";
--> statement-breakpoint
ALTER TABLE "emails_unpartitioned" RENAME CONSTRAINT "emails_contact_id_contacts_id_fk" TO "emails_unpartitioned_contact_id_fk";
--> statement-breakpoint
ALTER TABLE "emails_unpartitioned" RENAME CONSTRAINT "emails_attachment_set_id_attachment_sets_id_fk" TO "emails_unpartitioned_attachment_set_id_fk";
--> statement-breakpoint
-- No primary key on the parent, as for events: each partition has a unique index on `id` of its own.
CREATE TABLE "emails" (
	"id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"contact_id" uuid,
	"template_id" uuid,
	"campaign_id" uuid,
	"type" text NOT NULL,
	"status" text NOT NULL,
	"from_email" text NOT NULL,
	"from_name" text,
	"to_email" text NOT NULL,
	"to_name" text,
	"reply_to" text,
	"subject" text NOT NULL,
	"html" text NOT NULL,
	"headers" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"attachments" jsonb,
	"message_id" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp (3) with time zone,
	"last_error" text,
	"smtp_response" text,
	"sent_at" timestamp (3) with time zone,
	"failed_at" timestamp (3) with time zone,
	"opened_at" timestamp (3) with time zone,
	"clicked_at" timestamp (3) with time zone,
	"open_count" integer DEFAULT 0 NOT NULL,
	"click_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"bounced_at" timestamp (3) with time zone,
	"bounce_type" text,
	"complained_at" timestamp (3) with time zone,
	"locked_by" bigint,
	"attachment_set_id" uuid,
	"text" text,
	"paced_at" timestamp (3) with time zone,
	"not_before" timestamp (3) with time zone,
	"machine_open" boolean,
	"content_removed_at" timestamp (3) with time zone
) PARTITION BY RANGE ("created_at");
--> statement-breakpoint
ALTER TABLE "emails" ADD CONSTRAINT "emails_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "emails" ADD CONSTRAINT "emails_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE set null ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "emails" ADD CONSTRAINT "emails_attachment_set_id_attachment_sets_id_fk" FOREIGN KEY ("attachment_set_id") REFERENCES "public"."attachment_sets"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
-- The same definitions as the existing table's indexes, so that attaching it adopts them.
CREATE INDEX "emails_project_created" ON "emails" USING btree ("project_id","created_at","id");
--> statement-breakpoint
CREATE INDEX "emails_contact" ON "emails" USING btree ("contact_id");
--> statement-breakpoint
CREATE INDEX "emails_campaign" ON "emails" USING btree ("campaign_id") WHERE campaign_id is not null;
--> statement-breakpoint
CREATE INDEX "emails_campaign_queued" ON "emails" USING btree ("campaign_id") WHERE status = 'queued' and campaign_id is not null;
--> statement-breakpoint
CREATE INDEX "emails_attachment_set" ON "emails" USING btree ("attachment_set_id") WHERE attachment_set_id is not null;
--> statement-breakpoint
CREATE INDEX "emails_due_transactional" ON "emails" USING btree ("next_attempt_at") WHERE status = 'queued' and campaign_id is null;
--> statement-breakpoint
CREATE INDEX "emails_due_campaign" ON "emails" USING btree ("next_attempt_at") WHERE status = 'queued' and campaign_id is not null;
--> statement-breakpoint
CREATE INDEX "emails_held_slots" ON "emails" USING btree ("project_id", lower(substring("to_email" from '[^@]*$')), "paced_at") WHERE status = 'queued' and paced_at = next_attempt_at;
--> statement-breakpoint
CREATE INDEX "emails_campaign_sent" ON "emails" USING btree ("campaign_id", "sent_at") WHERE campaign_id is not null and sent_at is not null;
--> statement-breakpoint
CREATE INDEX "emails_campaign_paced" ON "emails" USING btree ("campaign_id", "next_attempt_at") WHERE status = 'queued' and campaign_id is not null and paced_at = next_attempt_at;
--> statement-breakpoint
CREATE INDEX "emails_project_recipient" ON "emails" USING btree ("project_id", lower("to_email"));
--> statement-breakpoint
DO $$
BEGIN
	IF EXISTS (SELECT 1 FROM "emails_unpartitioned") THEN
		ALTER TABLE "emails" ATTACH PARTITION "emails_unpartitioned" DEFAULT;
	ELSE
		DROP TABLE "emails_unpartitioned";
		CREATE TABLE "emails_default" PARTITION OF "emails" DEFAULT;
		CREATE UNIQUE INDEX "emails_default_id" ON "emails_default" ("id");
	END IF;
END $$;
