ALTER TABLE "campaigns" ADD COLUMN "skipped_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "frozen_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "fanned_out_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "emails_campaign_queued" ON "emails" USING btree ("campaign_id") WHERE status = 'queued' and campaign_id is not null;